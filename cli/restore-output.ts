// What `cairn restore` prints, in restic 0.18's shapes (internal/ui/restore text.go, json.go):
// the status line (a terminal) or status messages (--json), one line per item with -v (restic
// needs -vv: cairn's -v is one level), errors, and the summary.

import type { GoTime } from '../core/data/go-time';
import type { ProgressSnapshot } from '../core/progress';
import { formatDuration } from '../core/progress';
import type { RestoreItem, RestoreResult } from '../core/restorer';
import { PROGRESS_KEYS } from '../core/restorer/report';
import { formatBytes, type Out } from './output';

/** restic's counters (ui/restore State) from a progress snapshot or a result. */
export interface RestoreState {
  filesTotal: number;
  filesFinished: number;
  filesSkipped: number;
  filesDeleted: number;
  bytesTotal: number;
  bytesWritten: number;
  bytesSkipped: number;
}

/** The final counters of a restore. */
export function resultState(r: RestoreResult): RestoreState {
  const items = r.items ?? { total: 0, done: 0, bytes: 0, bytesDone: 0 };
  return {
    filesTotal: items.total,
    filesFinished: items.done,
    filesSkipped: r.skippedFiles ?? 0,
    filesDeleted: r.deleted ?? 0,
    bytesTotal: items.bytes,
    bytesWritten: items.bytesDone,
    bytesSkipped: r.skippedBytes ?? 0,
  };
}

function stateOf(p: ProgressSnapshot): RestoreState {
  const x = (k: string) => p.extra[k] ?? 0;
  return {
    filesTotal: x(PROGRESS_KEYS.items),
    filesFinished: x(PROGRESS_KEYS.itemsDone),
    filesSkipped: x(PROGRESS_KEYS.skippedFiles),
    filesDeleted: x(PROGRESS_KEYS.deleted),
    bytesTotal: p.total.bytes,
    bytesWritten: p.done.bytes,
    bytesSkipped: x(PROGRESS_KEYS.skippedBytes),
  };
}

/** Go's `omitempty` for the numbers of restic's JSON messages. */
function omitZero(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0 || typeof v !== 'number'));
}

function counters(s: RestoreState) {
  return {
    total_files: s.filesTotal,
    files_restored: s.filesFinished,
    files_skipped: s.filesSkipped,
    files_deleted: s.filesDeleted,
    total_bytes: s.bytesTotal,
    bytes_restored: s.bytesWritten,
    bytes_skipped: s.bytesSkipped,
  };
}

/** restic's statusUpdate (percent_done is always there). */
function statusMessage(p: ProgressSnapshot): string {
  const s = stateOf(p);
  const percent_done = s.bytesTotal > 0 ? s.bytesWritten / s.bytesTotal : 0;
  const { seconds_elapsed, ...rest } = omitZero({ seconds_elapsed: Math.floor(p.elapsedMs / 1000), ...counters(s) });
  return JSON.stringify({ message_type: 'status', ...(seconds_elapsed === undefined ? {} : { seconds_elapsed }), percent_done, ...rest }) + '\n';
}

export function summaryMessage(s: RestoreState, seconds: number): string {
  return JSON.stringify({ message_type: 'summary', ...summaryFields(s, seconds) }) + '\n';
}

/** The numbers of restic's summary message (for --json and --log-file). */
export function summaryFields(s: RestoreState, seconds: number): Record<string, unknown> {
  return omitZero({ seconds_elapsed: Math.floor(seconds), ...counters(s) });
}

/** restic's text Finish. */
export function summaryLine(s: RestoreState, seconds: number): string {
  const took = formatDuration(seconds);
  let line =
    s.filesFinished === s.filesTotal && s.bytesWritten === s.bytesTotal
      ? `Summary: Restored ${s.filesTotal} files/dirs (${formatBytes(s.bytesTotal)}) in ${took}`
      : `Summary: Restored ${s.filesFinished} / ${s.filesTotal} files/dirs (${formatBytes(s.bytesWritten)} / ${formatBytes(s.bytesTotal)}) in ${took}`;
  if (s.filesSkipped > 0) line += `, skipped ${s.filesSkipped} files/dirs ${formatBytes(s.bytesSkipped)}`;
  if (s.filesDeleted > 0) line += `, deleted ${s.filesDeleted} files/dirs`;
  return line + '\n';
}

/** restic's text Update (on a terminal only). */
function statusLine(p: ProgressSnapshot): string {
  const s = stateOf(p);
  const percent = s.bytesTotal > 0 ? `${((100 * s.bytesWritten) / s.bytesTotal).toFixed(2)}%` : '';
  let line = `[${formatDuration(p.elapsedMs / 1000)}] ${percent}  ${s.filesFinished} files/dirs ${formatBytes(s.bytesWritten)}, total ${s.filesTotal} files/dirs ${formatBytes(s.bytesTotal)}`;
  if (s.filesSkipped > 0) line += `, skipped ${s.filesSkipped} files/dirs ${formatBytes(s.bytesSkipped)}`;
  if (s.filesDeleted > 0) line += `, deleted ${s.filesDeleted} files/dirs`;
  return line;
}

/** restic's CompleteItem line: text (`%-9v %v with size %v`) or a verbose_status message. */
export function itemLine(item: RestoreItem, json: boolean): string {
  if (json) return JSON.stringify({ message_type: 'verbose_status', action: item.action, item: item.path, size: item.size }) + '\n';
  const head = `${item.action.padEnd(9)} ${item.path}`;
  return (item.kind === 'file' && item.action !== 'deleted' ? `${head} with size ${formatBytes(item.size)}` : head) + '\n';
}

export function errorMessage(path: string, code: string, message: string, json: boolean): string {
  if (json) return JSON.stringify({ message_type: 'error', error: { message: `${code}: ${message}` }, during: 'restore', item: path }) + '\n';
  return `ignoring error for ${path}: ${code}: ${message}\n`;
}

/** A progress listener: restic's status line on a terminal, status messages with --json. */
export function restoreProgress(out: Out, json: boolean): ((p: ProgressSnapshot) => void) | undefined {
  if (json) return (p) => p.phase !== 'done' && out.stdout(statusMessage(p));
  if (!out.isTTY) return undefined;
  return (p) => {
    if (p.phase === 'done') return out.stderr('\r\x1b[K');
    const width = (process.stderr.columns ?? 120) - 1;
    const line = statusLine(p);
    out.stderr('\r\x1b[K' + (line.length > width ? line.slice(0, width) : line));
  };
}

/** Go's time.Time String(): "2006-01-02 15:04:05.999999999 -0700 MST" (the zone named when it is UTC). */
export function goTimeString(t: GoTime): string {
  const c = t.civil();
  const p2 = (n: number) => String(n).padStart(2, '0');
  const frac = t.nsec ? '.' + String(t.nsec).padStart(9, '0').replace(/0+$/, '') : '';
  const off = Math.abs(t.offset);
  const zone = `${t.offset < 0 ? '-' : '+'}${p2(Math.floor(off / 3600))}${p2(Math.floor((off % 3600) / 60))}`;
  // A time that says Z is in Go's UTC location; any other offset is a nameless fixed zone.
  return `${String(c.year).padStart(4, '0')}-${p2(c.month)}-${p2(c.day)} ${p2(c.hour)}:${p2(c.minute)}:${p2(c.second)}${frac} ${zone} ${t.offset ? zone : 'UTC'}`;
}

/** Go's time.Duration String() of a duration rounded to milliseconds ("1.234s", "12ms", "1m2.5s"). */
export function goDuration(ms: number): string {
  ms = Math.round(ms);
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = ((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}
