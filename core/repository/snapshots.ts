// Finding snapshots: list and decode them all, resolve an ID prefix or `latest` with
// restic's host/path/tag filters, and pick a backup's parent (restic findParentSnapshot:
// the newest snapshot of the same host and the same set of paths).

import { CairnError } from '../errors';
import { decodeSnapshot, type Snapshot } from '../data/snapshot';
import type { ID } from '../id';
import { mapLimit } from '../concurrency/concurrency';
import type { Repository } from './repository';

export interface SnapshotEntry {
  id: ID;
  snapshot: Snapshot;
}

export interface SnapshotFilter {
  hosts?: string[];
  /** Every one of these paths must be among the snapshot's paths. */
  paths?: string[];
  /** restic --tag: each entry is a comma-separated AND group; any group may match. */
  tags?: string[];
}

/** Damage to the file itself (as opposed to the storage failing to deliver it). */
const DAMAGE: ReadonlySet<string> = new Set(['BAD_SNAPSHOT', 'HASH_MISMATCH', 'MAC_MISMATCH', 'DECOMPRESS_FAILED']);

/** Loads one snapshot; a damaged file is a BAD_SNAPSHOT whose message starts "snapshot 1234abcd: ". */
export async function loadSnapshot(repo: Repository, id: ID, signal?: AbortSignal, fetched?: Promise<Uint8Array>): Promise<Snapshot> {
  try {
    return decodeSnapshot(await repo.loadUnpacked('snapshots', id, signal, fetched));
  } catch (e) {
    if (e instanceof CairnError && DAMAGE.has(e.code)) {
      const name = `snapshot ${id.slice(0, 8)}`;
      const reason = e.message.startsWith(name + ': ') ? e.message.slice(name.length + 2) : e.message;
      throw new CairnError('BAD_SNAPSHOT', `${name}: ${reason}`, { cause: e, detail: { snapshot: id, damage: e.code } });
    }
    throw e;
  }
}

/** Told of each snapshot that could not be read (and was left out). */
export type SnapshotErrorHandler = (id: ID, e: unknown) => void;

/**
 * Every snapshot, oldest first. Unreadable ones are reported through `onError` and skipped
 * (a malformed snapshot must not hide the good ones), or thrown when no callback is given.
 */
export async function listSnapshots(repo: Repository, opts: { signal?: AbortSignal; onError?: SnapshotErrorHandler } = {}): Promise<SnapshotEntry[]> {
  const ids = await repo.listIDs('snapshots', opts.signal);
  const out: SnapshotEntry[] = [];
  await mapLimit(ids, 8, async (id) => {
    try {
      out.push({ id, snapshot: await loadSnapshot(repo, id, opts.signal) });
    } catch (e) {
      if (!opts.onError || (e instanceof CairnError && e.code === 'ABORTED')) throw e;
      opts.onError(id, e);
    }
  });
  return out.sort((a, b) => a.snapshot.time.compare(b.snapshot.time) || (a.id < b.id ? -1 : 1));
}

export function matches(sn: Snapshot, f: SnapshotFilter): boolean {
  if (f.hosts?.length && !f.hosts.includes(sn.hostname ?? '')) return false;
  if (f.paths?.length && !f.paths.every((p) => sn.paths.includes(p))) return false;
  if (
    f.tags?.length &&
    !f.tags.some((group) =>
      hasTags(
        sn.tags,
        group.split(',').map((t) => t.trim()),
      ),
    )
  )
    return false;
  return true;
}

/**
 * restic's Snapshot.HasTags (internal/restic/snapshot.go), for a list split by splitTagList
 * (comma-separated, each tag trimmed): every tag present, in order, except that an empty tag
 * reached first matches a snapshot without tags — so [''] matches only untagged snapshots
 * (`--tag ''`), and `--tag 'a, b'` asks for "a" and "b".
 */
export function hasTags(tags: readonly string[] | undefined, list: readonly string[]): boolean {
  const have = tags ?? [];
  for (const tag of list) {
    if (tag === '' && have.length === 0) return true;
    if (!have.includes(tag)) return false;
  }
  return true;
}

/**
 * Resolves `latest` or a (unique) ID prefix among the snapshots matching `filter`. `latest`
 * cannot be told while a snapshot is unreadable (it may be the newest): as restic, that is an
 * error naming the damaged snapshot, not a quiet fall-back to an older one.
 */
export async function findSnapshot(repo: Repository, ref: string, filter: SnapshotFilter = {}, signal?: AbortSignal): Promise<SnapshotEntry> {
  if (ref === 'latest') {
    const unreadable: CairnError[] = [];
    const listed = await listSnapshots(repo, { signal, onError: (_, e) => unreadable.push(asSnapshotError(e)) });
    if (unreadable.length) {
      const more = unreadable.length > 1 ? ` (and ${unreadable.length - 1} more unreadable)` : '';
      throw new CairnError('BAD_SNAPSHOT', `${unreadable[0]!.message}${more}; cannot tell which snapshot is the latest: name one by its ID (cairn snapshots)`, {
        cause: unreadable[0],
        detail: { snapshots: unreadable.map((u) => u.detail['snapshot']) },
      });
    }
    const all = listed.filter((e) => matches(e.snapshot, filter));
    const last = all[all.length - 1];
    if (!last) throw new CairnError('SNAPSHOT_NOT_FOUND', 'no snapshot found (latest)');
    return last;
  }
  if (!/^[0-9a-f]{1,64}$/.test(ref)) throw new CairnError('SNAPSHOT_NOT_FOUND', `invalid snapshot ID ${JSON.stringify(ref)}`);
  const ids = (await repo.listIDs('snapshots', signal)).filter((id) => id.startsWith(ref));
  if (ids.length === 0) throw new CairnError('SNAPSHOT_NOT_FOUND', `no snapshot matching ID ${ref}`);
  if (ids.length > 1) throw new CairnError('AMBIGUOUS_ID', `ID ${ref} matches ${ids.length} snapshots; use a longer prefix`);
  return { id: ids[0]!, snapshot: await loadSnapshot(repo, ids[0]!, signal) };
}

/**
 * A backup's parent among `entries` (oldest first): the newest snapshot of this host whose
 * paths include all of `paths` (restic 0.14 findParentSnapshot → FindLatestSnapshot with
 * HasPaths; 0.16's default --group-by host,paths filters the same way). A superset qualifies:
 * backing up /a after a backup of /a and /b takes that backup as the parent, so unchanged
 * files under /a are not read again. The one rule for the archiver and for the browser's
 * folder times (workers/engine/backup.ts).
 */
export function parentAmong<E extends SnapshotEntry>(entries: readonly E[], hostname: string, paths: readonly string[]): E | undefined {
  return entries.findLast((e) => (e.snapshot.hostname ?? '') === hostname && paths.every((p) => e.snapshot.paths.includes(p)));
}

/** The parent (see parentAmong) among the repository's readable snapshots. */
export async function findParent(
  repo: Repository,
  hostname: string,
  paths: string[],
  signal?: AbortSignal,
  onError: SnapshotErrorHandler = () => {},
): Promise<SnapshotEntry | undefined> {
  // An unreadable snapshot cannot be a parent; leaving it out only costs re-reading files.
  return parentAmong(await listSnapshots(repo, { signal, onError }), hostname, paths);
}

function asSnapshotError(e: unknown): CairnError {
  return e instanceof CairnError ? e : new CairnError('BAD_SNAPSHOT', String((e as Error)?.message ?? e), { cause: e });
}
