// Has a snapshot been copied already? (restic cmd_copy.go similarSnapshots.) A copy keeps
// every field but `parent` and records its source as `original`; the target's snapshots are
// looked up by their `original` (and by their own ID, for copies of copies), then compared
// field by field.

import type { Snapshot } from '../data/snapshot';
import type { ID } from '../id';
import type { SnapshotEntry } from '../repository/snapshots';

const sameSet = (a: readonly string[] = [], b: readonly string[] = []) => a.length === b.length && b.every((x) => a.includes(x));

/** Everything except `parent` and `original` matches (paths and tags as sets, excludes in order). */
export function similarSnapshots(a: Snapshot, b: Snapshot): boolean {
  if (!a.time.equal(b.time) || a.tree !== b.tree) return false;
  if ((a.hostname ?? '') !== (b.hostname ?? '') || (a.username ?? '') !== (b.username ?? '')) return false;
  if ((a.uid ?? 0) !== (b.uid ?? 0) || (a.gid ?? 0) !== (b.gid ?? 0)) return false;
  if (!sameSet(a.paths, b.paths) || !sameSet(a.tags, b.tags)) return false;
  const ea = a.excludes ?? [],
    eb = b.excludes ?? [];
  return ea.length === eb.length && ea.every((x, i) => x === eb[i]);
}

/** The target's snapshots by the source snapshot they stand for: their `original`, and their own ID. */
export function byOriginal(target: readonly SnapshotEntry[]): Map<ID, SnapshotEntry[]> {
  const map = new Map<ID, SnapshotEntry[]>();
  const add = (k: ID, e: SnapshotEntry) => map.set(k, [...(map.get(k) ?? []), e]);
  for (const e of target) {
    if (e.snapshot.original) add(e.snapshot.original, e);
    add(e.id, e);
  }
  return map;
}

/** The target snapshot `source` was already copied to, if any. */
export function copiedAs(source: SnapshotEntry, target: Map<ID, SnapshotEntry[]>): SnapshotEntry | undefined {
  return target.get(source.snapshot.original ?? source.id)?.find((t) => similarSnapshots(t.snapshot, source.snapshot));
}
