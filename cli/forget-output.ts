// What `cairn forget` prints for the groups it decided on, in restic 0.18's shapes: per group
// "keep N snapshots:" with the Reasons column and "remove N snapshots:" (text), or one JSON
// list of {tags, host, paths, keep, remove, reasons} with Go's nulls for empty lists.

import type { ForgetGroup } from '../core/forget';
import type { SnapshotEntry } from '../core/repository/snapshots';
import { groupHeader, snapshotTable } from './snapshot-table';
import { snapshotJSON } from './snapshot-json';

/** One group as restic prints it: optional header (-v), the kept and the removed snapshots. */
export function forgetGroupText(g: ForgetGroup, opts: { compact: boolean; verbose: boolean; quiet: boolean }): string {
  let out = opts.verbose ? groupHeader(g.key) : '';
  if (opts.quiet) return out;
  if (g.keep.length) {
    const rows = g.reasons.map((r) => ({ ...r.entry, reasons: r.matches }));
    out += `keep ${g.keep.length} snapshots:\n${snapshotTable(rows, { compact: opts.compact, withReasons: true })}\n`;
  }
  if (g.remove.length) out += `remove ${g.remove.length} snapshots:\n${snapshotTable(g.remove, { compact: opts.compact })}\n`;
  return out;
}

const snapshots = (list: readonly SnapshotEntry[]) => (list.length ? list.map((e) => snapshotJSON(e.id, e.snapshot)) : null);

/** restic 0.18's ForgetGroup list (cmd_forget.go), one line. */
export function forgetJSON(groups: readonly ForgetGroup[]): string {
  const out = groups.map((g) => ({
    tags: g.key.tags,
    host: g.key.hostname,
    paths: g.key.paths,
    keep: snapshots(g.keep),
    remove: snapshots(g.remove),
    reasons: g.reasons.length ? g.reasons.map((r) => ({ snapshot: snapshotJSON(r.entry.id, r.entry.snapshot), matches: r.matches })) : null,
  }));
  return JSON.stringify(out) + '\n';
}

/** restic's IDSet.String: the short IDs, sorted, in braces. */
export function idSetText(ids: readonly string[]): string {
  return `{${[...ids]
    .sort()
    .map((id) => id.slice(0, 8))
    .join(' ')}}`;
}
