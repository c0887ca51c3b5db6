// What `cairn prune` prints, in restic's words: the statistics block (restic 0.18
// printPruneStats; the -v lines only when verbose), the summary object restic 0.19 prints
// with --json, and one line per step plus a counter on stderr while it is a terminal.

import { formatBytes, formatDuration } from '../core/progress';
import type { PruneProgress, PruneStats } from '../core/prune';
import type { Out } from './output';

/** Go's "%3.2f%%" of numerator/denominator, at most 100 %; empty for a zero denominator (restic ui.FormatPercent). */
export function formatPercent(numerator: number, denominator: number): string {
  if (denominator === 0) return '';
  return `${Math.min(100, (100 * numerator) / denominator)
    .toFixed(2)
    .padStart(3)}%`;
}

const count = (n: number) => String(n).padStart(10);

export function pruneStatsText(s: PruneStats, verbose: boolean): string {
  const lines: string[] = [];
  const v = (line: string) => verbose && lines.push(line);
  v(`\nused:         ${count(s.blobs.used)} blobs / ${formatBytes(s.bytes.used)}`);
  if (s.blobs.duplicate > 0) v(`duplicates:   ${count(s.blobs.duplicate)} blobs / ${formatBytes(s.bytes.duplicate)}`);
  v(`unused:       ${count(s.blobs.unused)} blobs / ${formatBytes(s.bytes.unused)}`);
  if (s.bytes.unreferenced > 0) v(`unreferenced:                    ${formatBytes(s.bytes.unreferenced)}`);
  v(`total:        ${count(s.blobs.total)} blobs / ${formatBytes(s.bytes.total)}`);
  v(`unused size: ${formatPercent(s.bytes.duplicate + s.bytes.unused, s.bytes.total)} of total size`);
  lines.push(`\nto repack:    ${count(s.blobs.repack)} blobs / ${formatBytes(s.bytes.repack)}`);
  lines.push(`this removes: ${count(s.blobs.repackRemove)} blobs / ${formatBytes(s.bytes.repackRemove)}`);
  lines.push(`to delete:    ${count(s.blobs.remove)} blobs / ${formatBytes(s.bytes.remove + s.bytes.unreferenced)}`);
  lines.push(`total prune:  ${count(s.blobs.removeTotal)} blobs / ${formatBytes(s.bytes.removeTotal)}`);
  if (s.bytes.uncompressed > 0) lines.push(`not yet compressed:              ${formatBytes(s.bytes.uncompressed)}`);
  lines.push(`remaining:    ${count(s.blobs.remaining)} blobs / ${formatBytes(s.bytes.remaining)}`);
  lines.push(
    `unused size after prune: ${formatBytes(s.bytes.remainingUnused)} (${formatPercent(s.bytes.remainingUnused, s.bytes.remaining)} of remaining size)`,
  );
  lines.push('');
  v(`totally used packs: ${count(s.packs.used)}`);
  v(`partly used packs:  ${count(s.packs.partlyUsed)}`);
  v(`unused packs:       ${count(s.packs.unused)}\n`);
  v(`to keep:      ${count(s.packs.keep)} packs`);
  v(`to repack:    ${count(s.packs.repack)} packs`);
  v(`to delete:    ${count(s.packs.remove)} packs`);
  if (s.packs.unreferenced > 0) v(`to delete:    ${count(s.packs.unreferenced)} unreferenced packs\n`);
  return lines.join('\n') + '\n';
}

/** restic 0.19's PruneStats JSON (prune --json), field for field. */
export function pruneStatsJSON(s: PruneStats): Record<string, unknown> {
  const b = s.blobs,
    z = s.bytes,
    p = s.packs;
  return {
    message_type: 'summary',
    blobs: {
      used: b.used,
      duplicate: b.duplicate,
      unused: b.unused,
      total: b.total,
      repack: b.repack,
      repack_remove: b.repackRemove,
      remove: b.remove,
      remove_total: b.removeTotal,
      remaining: b.remaining,
    },
    bytes: {
      used: z.used,
      duplicate: z.duplicate,
      unused: z.unused,
      unreferenced: z.unreferenced,
      uncompressed: z.uncompressed,
      total: z.total,
      repack: z.repack,
      repack_remove: z.repackRemove,
      remove: z.remove,
      remove_total: z.removeTotal,
      remaining: z.remaining,
      remaining_unused: z.remainingUnused,
    },
    packfiles: {
      used: p.used,
      unused: p.unused,
      partly_used: p.partlyUsed,
      unreferenced: p.unreferenced,
      total: p.total,
      keep: p.keep,
      repack: p.repack,
      remove: p.remove,
      remove_total: p.removeTotal,
    },
  };
}

const UNITS: Partial<Record<PruneProgress['phase'], string>> = {
  'load-index': 'index files loaded',
  'find-used': 'snapshots',
  'delete-unreferenced': 'files deleted',
  repack: 'packs repacked',
  'delete-index': 'files deleted',
  'delete-packs': 'files deleted',
};

/** restic's step lines through `say`, and while stderr is a terminal a "[0:03] 40.00%  4 / 10 packs repacked" line. */
export function pruneProgress(out: Out, say: (line: string) => void): (p: PruneProgress) => void {
  let phase: PruneProgress['phase'] | undefined;
  const start = Date.now();
  return (p) => {
    if (p.phase !== phase) {
      if (out.isTTY) out.stderr('\r\x1b[K');
      phase = p.phase;
      const line = stepLine(p);
      if (line) say(line);
    }
    const unit = UNITS[p.phase];
    if (!out.isTTY || !unit || p.total === 0) return;
    out.stderr(`\r\x1b[K[${formatDuration((Date.now() - start) / 1000)}] ${formatPercent(p.done, p.total)}  ${p.done} / ${p.total} ${unit}`);
  };
}

function stepLine(p: PruneProgress): string | undefined {
  switch (p.phase) {
    case 'load-index':
      return 'loading indexes...';
    case 'load-snapshots':
      return 'loading all snapshots...';
    case 'find-used':
      return `finding data that is still in use for ${p.total} snapshots`;
    case 'classify':
      return 'searching used packs...\ncollecting packs for deletion and repacking';
    case 'delete-unreferenced':
      return 'deleting unreferenced packs';
    case 'repack':
      return 'repacking packs';
    case 'rewrite-index':
      return 'rebuilding index';
    case 'delete-index':
      return 'deleting obsolete index files';
    case 'delete-packs':
      return `removing ${p.total} old packs`;
    case 'done':
      return 'done';
  }
}
