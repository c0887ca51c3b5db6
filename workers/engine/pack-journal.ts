// What a backup of a closed tab leaves behind, and how the next backup takes it up. Each pack a
// backup stores is noted in the engine's IndexedDB (core/repository/adopt.ts's PackJournal),
// by the thread storing it and before it does, until an index file lists it; the notes carry
// the engine's number (./liveness.ts). A later backup of the same repository adopts the packs
// noted by engines that are gone (or by itself, after a run that failed), so their blobs are
// not uploaded again, and the lock files those engines left are removed: restic's "stale lock
// of this host whose process is gone", with the Web Lock standing in for the PID.

import { CairnError } from '../../core/errors';
import { adoptPacks, type AdoptResult, type PackJournal } from '../../core/repository/adopt';
import { removeLocks, type LockOwner } from '../../core/repository/lock';
import type { Repository } from '../../core/repository/repository';
import { deletePendingPacks, pendingPacks, putPendingPack } from '../cache/db';
import { enginePid, liveEngines } from './liveness';

/** The journal of engine `engine` (its lock number) for repository `repo` (the config's ID). */
export function packJournal(repo: string, engine: number = enginePid()): PackJournal {
  return {
    // A note that cannot be kept only costs an upload later — except when the origin's quota is
    // used up: then the pack is not stored either (it would be a pack no one adopts, taking
    // space, and its write would most likely fail as well).
    storing: (pack) =>
      putPendingPack(repo, String(engine), pack).catch((e: unknown) => {
        if ((e as { name?: string } | null)?.name === 'QuotaExceededError')
          throw new CairnError('QUOTA_EXCEEDED', `no room to note pack ${pack.slice(0, 8)}: ${(e as Error).message}`, { cause: e });
      }),
    indexed: (packs) => void deletePendingPacks(repo, String(engine), packs).catch(() => {}),
  };
}

/** The lock owner for this engine: a lock of this host is stale once its engine is gone. */
export async function engineOwner(hostname: string, username: string): Promise<LockOwner> {
  const alive = await liveEngines();
  return { hostname, username, pid: enginePid(), processAlive: alive && ((pid) => alive.has(pid)) };
}

/**
 * Removes the lock files this browser's engines that are gone left in the repository (after
 * opening it, and before a backup): restic would wait 30 minutes before calling them stale.
 * Without Web Locks nothing tells a closed tab from a running one: then it removes nothing.
 */
export async function removeDeadEngineLocks(repo: Repository, owner: LockOwner): Promise<void> {
  if (owner.processAlive) await removeLocks(repo, owner, { ownHost: true }).catch(() => {});
}

/**
 * Before a backup: adopts the packs that engines that are gone (or this one, in a run that
 * failed) stored without indexing them. Needs the index loaded; like removeDeadEngineLocks,
 * does nothing without Web Locks.
 */
export async function adoptLeftoverPacks(repo: Repository, owner: LockOwner, signal?: AbortSignal): Promise<AdoptResult | undefined> {
  const alive = owner.processAlive;
  if (!alive) return undefined;
  const repoId = repo.config.id;
  const notes = (await pendingPacks(repoId).catch(() => [])).filter((n) => Number(n.engine) === owner.pid || !alive(Number(n.engine)));
  if (notes.length === 0) return undefined;
  const result = await adoptPacks(
    repo,
    notes.map((n) => n.pack),
    signal,
  );
  // A pack its tab was still writing left a temp file (OPFS, a picked folder: `<pack>-tmp-…`)
  // that nothing lists or removes; its engine is gone (or, this one's, finished), so no save of
  // it is under way.
  const { backend } = repo;
  if (backend.removeTemps) for (const n of notes) await backend.removeTemps({ type: 'data', name: n.pack }, { signal }).catch(() => 0);
  const byEngine = new Map<string, string[]>();
  for (const n of notes) byEngine.set(n.engine, [...(byEngine.get(n.engine) ?? []), n.pack]);
  await Promise.all([...byEngine].map(([engine, packs]) => deletePendingPacks(repoId, engine, packs).catch(() => {})));
  return result;
}
