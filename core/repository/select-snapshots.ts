// Which snapshots a command works on (restic SnapshotFilter.FindAll): with no arguments every
// snapshot matching the --host/--tag/--path filter, oldest first; otherwise each argument, an
// ID prefix or `latest` (the newest matching the filter), each snapshot once. Filters beside
// explicit IDs are refused, as restic does ("explicit snapshot ids are given").

import { CairnError } from '../errors';
import type { ID } from '../id';
import { listSnapshots, loadSnapshot, matches, type SnapshotEntry, type SnapshotFilter } from './snapshots';
import type { Repository } from './repository';

export interface Unreadable {
  id: ID;
  error: unknown;
}

export interface Selection {
  entries: SnapshotEntry[];
  /** Snapshot files that could not be loaded (callers decide: fatal, or repair removes them). */
  unreadable: Unreadable[];
}

function filterIsEmpty(f: SnapshotFilter): boolean {
  return !f.hosts?.length && !f.tags?.length && !f.paths?.length;
}

async function resolvePrefix(repo: Repository, ids: ID[], prefix: string): Promise<ID> {
  if (!/^[0-9a-f]{1,64}$/.test(prefix)) throw new CairnError('SNAPSHOT_NOT_FOUND', `invalid snapshot ID ${JSON.stringify(prefix)}`);
  const found = ids.filter((id) => id.startsWith(prefix));
  if (found.length === 0) throw new CairnError('SNAPSHOT_NOT_FOUND', `no matching ID found for prefix "${prefix}"`);
  if (found.length > 1) throw new CairnError('AMBIGUOUS_ID', `multiple IDs with prefix "${prefix}" found`);
  return found[0]!;
}

export async function selectSnapshots(repo: Repository, args: readonly string[], filter: SnapshotFilter, signal?: AbortSignal): Promise<Selection> {
  const unreadable: Unreadable[] = [];
  if (args.length === 0) {
    const all = await listSnapshots(repo, { signal, onError: (id, error) => unreadable.push({ id, error }) });
    return { entries: all.filter((e) => matches(e.snapshot, filter)), unreadable };
  }
  if (!filterIsEmpty(filter) && !args.includes('latest'))
    throw new CairnError('USAGE', 'explicit snapshot ids are given; --host, --tag and --path only apply without them (or with "latest")');
  const ids = await repo.listIDs('snapshots', signal);
  const entries: SnapshotEntry[] = [];
  const seen = new Set<ID>();
  for (const arg of args) {
    if (arg === 'latest') {
      const all = (await listSnapshots(repo, { signal, onError: () => {} })).filter((e) => matches(e.snapshot, filter));
      const last = all[all.length - 1];
      if (!last)
        throw new CairnError(
          'SNAPSHOT_NOT_FOUND',
          `no snapshot matched given filter (Paths:[${filter.paths?.join(' ') ?? ''}] Tags:[${filter.tags?.join(' ') ?? ''}] Hosts:[${filter.hosts?.join(' ') ?? ''}])`,
        );
      if (!seen.has(last.id)) entries.push(last);
      seen.add(last.id);
      continue;
    }
    const id = await resolvePrefix(repo, ids, arg);
    if (seen.has(id)) continue;
    seen.add(id);
    try {
      entries.push({ id, snapshot: await loadSnapshot(repo, id, signal) });
    } catch (error) {
      if (error instanceof CairnError && error.code === 'ABORTED') throw error;
      unreadable.push({ id, error });
    }
  }
  return { entries, unreadable };
}
