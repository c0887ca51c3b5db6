// restic's snapshot groups (internal/data/snapshot_group.go): the policy applies to each
// group alone. The key holds the host, the sorted paths and the sorted tags — each only
// when grouping by it (`--group-by host,paths` by default, '' for one group of everything).

import { CairnError } from '../errors';
import type { SnapshotEntry } from '../repository/snapshots';

export interface GroupBy {
  host: boolean;
  paths: boolean;
  tags: boolean;
}

export const DEFAULT_GROUP_BY: Readonly<GroupBy> = Object.freeze({ host: true, paths: true, tags: false });

/** restic's SnapshotGroupKey: null (JSON null) for what the groups are not split by. */
export interface GroupKey {
  hostname: string;
  paths: string[] | null;
  tags: string[] | null;
}

export interface SnapshotGroup {
  key: GroupKey;
  /** the group's snapshots, with paths (and tags, when grouping by them) sorted as restic sorts them */
  entries: SnapshotEntry[];
}

/** restic's --group-by value: host(s), path(s), tag(s), comma-separated; '' parts are ignored. */
export function parseGroupBy(value: string): GroupBy {
  const g: GroupBy = { host: false, paths: false, tags: false };
  for (const option of value.split(',')) {
    if (option === 'host' || option === 'hosts') g.host = true;
    else if (option === 'path' || option === 'paths') g.paths = true;
    else if (option === 'tag' || option === 'tags') g.tags = true;
    else if (option !== '') throw new CairnError('BAD_POLICY', `unknown grouping option: ${JSON.stringify(option)}`, { detail: { option: 'group-by', value } });
  }
  return g;
}

/** restic's SnapshotGroupByOptions.String: "host,paths,tags" with what is set. */
export function formatGroupBy(g: GroupBy): string {
  return [g.host && 'host', g.paths && 'paths', g.tags && 'tags'].filter(Boolean).join(',');
}

/** restic's SnapshotGroupKey.String, as in "refusing to delete last snapshot of snapshot group …". */
export function groupKeyString(k: GroupKey): string {
  const parts: string[] = [];
  if (k.hostname) parts.push(`host ${k.hostname}`);
  if (k.paths?.length) parts.push(`path [${k.paths.join(' ')}]`);
  if (k.tags?.length) parts.push(`tags [${k.tags.join(' ')}]`);
  return parts.join(', ');
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** null first, then element by element, a list before its extensions. */
function compareLists(a: readonly string[] | null, b: readonly string[] | null): number {
  if (!a || !b) return (a ? 1 : 0) - (b ? 1 : 0);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = byCodeUnits(a[i]!, b[i]!);
    if (c) return c;
  }
  return a.length - b.length;
}

/** Groups in the order of host, then paths, then tags. */
export function compareGroupKeys(a: GroupKey, b: GroupKey): number {
  return byCodeUnits(a.hostname, b.hostname) || compareLists(a.paths, b.paths) || compareLists(a.tags, b.tags);
}

/**
 * Splits snapshots into groups ordered by host, paths, tags (restic's order is a Go map's,
 * i.e. random).
 * As in restic every snapshot's paths come out sorted, and its tags too when grouping by
 * them; the input is not changed. A snapshot without tags has the tags key null.
 */
export function groupSnapshots(entries: readonly SnapshotEntry[], groupBy: GroupBy): SnapshotGroup[] {
  const groups = new Map<string, SnapshotGroup>();
  for (const e of entries) {
    const paths = [...e.snapshot.paths].sort(byCodeUnits);
    const tags = groupBy.tags && e.snapshot.tags ? [...e.snapshot.tags].sort(byCodeUnits) : e.snapshot.tags;
    const snapshot = { ...e.snapshot, paths, ...(tags ? { tags } : {}) };
    const key: GroupKey = {
      hostname: groupBy.host ? (snapshot.hostname ?? '') : '',
      paths: groupBy.paths ? paths : null,
      tags: groupBy.tags && tags?.length ? tags : null,
    };
    const id = JSON.stringify([key.hostname, key.paths, key.tags]);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { key, entries: [] }));
    g.entries.push({ id: e.id, snapshot });
  }
  return [...groups.values()].sort((a, b) => compareGroupKeys(a.key, b.key));
}
