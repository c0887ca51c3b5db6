// Filling a bucket repository's offline cache in the background: the index, then every
// snapshot's trees, one level at a time. Nothing of it is needed to show the snapshot list, so
// it starts after the list is shown (the page asks for it) and steps aside while the page's own
// requests run. Each snapshot whose trees are all cached is recorded (workers/cache/db.ts), so a
// reload resumes where the last fill stopped: recorded snapshots are not walked again, and
// once all are recorded the fill reads nothing at all, not even the index.

import type { Tree } from '../../core/data';
import type { ID } from '../../core/id';
import type { SnapshotEntry } from '../../core/repository/snapshots';
import type { Repository } from '../../core/repository/repository';
import { mapLimit } from '../../core/concurrency/concurrency';
import { CairnError } from '../../core/errors';
import type { OfflineCacheProgress } from '../api';

/** What the fill needs of the session (./session.ts). */
export interface FillHost {
  readonly repo: Repository;
  snapshots(signal?: AbortSignal): Promise<SnapshotEntry[]>;
  /** A tree as browsing gets it (cached on the way), without counting as the page's work. */
  backgroundTree(id: ID, signal?: AbortSignal): Promise<Tree>;
  /** Resolves when none of the page's requests is running. */
  foregroundIdle(): Promise<void>;
  /** Waits for cache writes in flight. */
  settled(): Promise<void>;
  /** The first cache write the browser refused for lack of room, if any (QuotaExceededError). */
  refused?(): unknown;
  /**
   * Search's outlines (./name-index.ts): told every tree read, and stored per snapshot before it
   * is recorded. A snapshot recorded without them (by an older version of the app) is walked
   * again for them, from the cache.
   */
  outlines?: { add(id: ID, tree: Tree): Promise<void>; commit(snapshot: ID): Promise<void>; stored(): Promise<Set<ID>> };
}

/** Where completed snapshots are recorded (the engine's IndexedDB; a map in unit tests). */
export interface FillRecords {
  complete(repoId: string): Promise<Set<ID>>;
  markComplete(repoId: string, snapshot: ID): Promise<void>;
}

const TREE_LOADS = 4;

/**
 * Stops the fill once the browser has refused room for the cache: the snapshot being filled is
 * not recorded (some of its trees were not kept), those recorded before stay available offline.
 */
function throwIfRefused(host: FillHost, p: OfflineCacheProgress): void {
  const refused = host.refused?.();
  if (!refused) return;
  throw new CairnError(
    'QUOTA_EXCEEDED',
    `the browser gives this site no more room for the offline copy: ${p.snapshotsDone} of ${p.snapshots} snapshots are kept for offline browsing (${(refused as Error).message ?? String(refused)})`,
    { cause: refused, detail: { reason: 'offline-cache-full', snapshotsDone: p.snapshotsDone, snapshots: p.snapshots } },
  );
}

/**
 * Fills the cache for every snapshot not yet recorded complete, newest first (the one most
 * likely browsed offline). `report` is awaited: a listener sets the pace, never falls behind.
 */
export async function fillOfflineCache(
  host: FillHost,
  records: FillRecords,
  report: (p: OfflineCacheProgress) => Promise<void>,
  signal: AbortSignal,
): Promise<OfflineCacheProgress> {
  const repoId = host.repo.config.id;
  const complete = await records.complete(repoId).catch(() => new Set<ID>());
  const outlined = await host.outlines?.stored().catch(() => new Set<ID>());
  const all = await host.snapshots(signal);
  const todo = all.filter((e) => !complete.has(e.id) || (outlined && !outlined.has(e.id))).reverse();
  const p: OfflineCacheProgress = { phase: 'index', indexFiles: 0, indexTotal: 0, snapshots: all.length, snapshotsDone: all.length - todo.length, folders: 0 };
  if (todo.length === 0) return { ...p, phase: 'done' };
  await report({ ...p });
  await host.foregroundIdle();
  let reported = Promise.resolve();
  await host.repo.loadIndex({
    background: true,
    signal,
    onFile: (done, total) => {
      p.indexFiles = done;
      p.indexTotal = total;
      reported = reported.then(() => report({ ...p }));
    },
  });
  await reported;
  p.phase = 'trees';
  await report({ ...p });
  const seen = new Set<ID>();
  for (const snap of todo) {
    let frontier = [snap.snapshot.tree];
    while (frontier.length > 0) {
      const next: ID[] = [];
      await mapLimit(frontier, TREE_LOADS, async (id) => {
        if (seen.has(id)) return;
        seen.add(id);
        await host.foregroundIdle();
        const tree = await host.backgroundTree(id, signal);
        await host.outlines?.add(id, tree);
        p.folders++;
        for (const n of tree.nodes) if (n.type === 'dir' && n.subtree && !seen.has(n.subtree)) next.push(n.subtree);
      });
      frontier = next;
      await report({ ...p });
    }
    await host.settled();
    throwIfRefused(host, p);
    // Without its outlines a snapshot is still searched, by reading its trees.
    await host.outlines?.commit(snap.id).catch(() => {});
    await records.markComplete(repoId, snap.id).catch(() => {});
    p.snapshotsDone++;
    await report({ ...p });
  }
  return { ...p, phase: 'done' };
}
