// restic 0.18's snapshot list as `forget` (and `snapshots`) print it (cmd/restic/
// cmd_snapshots.go PrintSnapshots, internal/ui/table): oldest first; times in the local zone
// of this machine (restic's sn.Time.Local()); columns padded to their widest line in terminal
// cells; a Reasons column when reasons are given, a Size column when a snapshot has a summary;
// a blank line between rows once any snapshot has several paths.

import type { GoTime } from '../core/data/go-time';
import type { Snapshot } from '../core/data/snapshot';
import type { ID } from '../core/id';
import type { GroupKey } from '../core/forget';
import { formatBytes } from '../core/progress';
import { displayWidth } from './display-width';

export interface TableRow {
  id: ID;
  snapshot: Snapshot;
  /** restic's keep reasons, when the table lists kept snapshots */
  reasons?: string[];
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Go's t.Local().Format("2006-01-02 15:04:05"). */
function formatLocalTime(t: GoTime): string {
  const d = new Date(t.unixMillis());
  return `${String(d.getFullYear()).padStart(4, '0')}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

interface Column {
  header: string;
  cell: (r: TableRow) => string;
}

function columnsFor(rows: readonly TableRow[], compact: boolean, withReasons: boolean): Column[] {
  const hasSize = rows.some((r) => r.snapshot.summary);
  const size: Column = { header: 'Size', cell: (r) => (r.snapshot.summary ? formatBytes(r.snapshot.summary.totalBytesProcessed) : '') };
  const id: Column = { header: 'ID', cell: (r) => r.id.slice(0, 8) };
  const time: Column = { header: 'Time', cell: (r) => formatLocalTime(r.snapshot.time) };
  const cols: Column[] = compact
    ? [id, time, { header: 'Host', cell: (r) => r.snapshot.hostname ?? '' }, { header: 'Tags  ', cell: (r) => (r.snapshot.tags ?? []).join('\n') }]
    : [id, time, { header: 'Host      ', cell: (r) => r.snapshot.hostname ?? '' }, { header: 'Tags      ', cell: (r) => (r.snapshot.tags ?? []).join(',') }];
  if (!compact && withReasons) cols.push({ header: 'Reasons', cell: (r) => (r.reasons ?? []).join('\n') });
  if (!compact) cols.push({ header: 'Paths', cell: (r) => r.snapshot.paths.join('\n') });
  if (hasSize) cols.push(size);
  return cols;
}

/** One table row (or header) as lines: each cell padded to its column, two spaces between, right-trimmed. */
function printLine(cells: readonly string[], widths: readonly number[]): string[] {
  const split = cells.map((c) => c.split('\n'));
  const height = Math.max(1, ...split.map((l) => l.length));
  const lines: string[] = [];
  for (let i = 0; i < height; i++) {
    const line = split.map((l, k) => {
      const v = l[i] ?? '';
      return v + ' '.repeat(Math.max(0, widths[k]! - displayWidth(v)));
    });
    lines.push(line.join('  ').trimEnd());
  }
  return lines;
}

/** restic's PrintSnapshots as text. `withReasons` adds the Reasons column (restic: when reasons are given). */
export function snapshotTable(list: readonly TableRow[], opts: { compact?: boolean; withReasons?: boolean } = {}): string {
  const compact = opts.compact === true;
  const rows = [...list].sort((a, b) => a.snapshot.time.compare(b.snapshot.time)); // stable: ties keep their order
  const cols = columnsFor(rows, compact, opts.withReasons === true);
  const cells = rows.map((r) => cols.map((c) => c.cell(r)));
  const widths = cols.map((c, k) => Math.max(displayWidth(c.header), ...cells.flatMap((row) => row[k]!.split('\n').map(displayWidth))));
  const rule = '-'.repeat(widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1));
  const multiline = !compact && rows.some((r) => r.snapshot.paths.length > 1);
  let out = printLine(
    cols.map((c) => c.header),
    widths,
  ).join('\n');
  out += `\n${rule}\n`;
  cells.forEach((row, i) => {
    if (multiline && i > 0) out += '\n';
    out += printLine(row, widths).join('\n') + '\n';
  });
  return out + `${rule}\n${rows.length} snapshots\n`;
}

/** restic's PrintSnapshotGroupHeader ("snapshots for (host [h], paths [/a, /b]):"), or "" for one ungrouped group. */
export function groupHeader(key: GroupKey): string {
  if (key.hostname === '' && key.tags === null && key.paths === null) return '';
  const info: string[] = [];
  if (key.hostname !== '') info.push(`host [${key.hostname}]`);
  if (key.tags !== null) info.push(`tags [${key.tags.join(', ')}]`);
  if (key.paths !== null) info.push(`paths [${key.paths.join(', ')}]`);
  return `snapshots for (${info.join(', ')}):\n`;
}
