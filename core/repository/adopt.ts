// Packs that a backup stored but never listed in an index file: the backup was cut short (a
// closed tab, a killed process, a lost network at the very end) before it wrote one. restic
// leaves them to `prune` and uploads their blobs again; here the packs a backup noted in its
// journal are taken into the index by reading their headers (restic's `repair index`, for
// just these packs), so the next backup finds their blobs instead of uploading them again.

import { CairnError, isNotFound } from '../errors';
import { preparing, type Saver } from '../backend/backend';
import type { ID } from '../id';
import type { IndexPack } from '../index/index-file';
import { readPackHeader } from '../pack/reader';
import { mapLimit } from '../concurrency/concurrency';
import type { Repository } from './repository';

/**
 * Where a backup notes each pack before it stores it, until an index file lists it, so that
 * what a cut-short backup stored can be adopted by a later one (even a pack whose upload went
 * on after its tab was gone). Notes are pack names only (public, like the bucket's listing),
 * never blob IDs. `indexed` never throws; `storing` throws only when the pack should not be
 * stored either (no room left for the note); any other failed note only costs an upload later.
 */
export interface PackJournal {
  /** Before pack `pack` is stored; awaited, so the note is kept before the upload starts. */
  storing(pack: ID): Promise<void>;
  /** These packs are listed in an index file now. */
  indexed(packs: readonly ID[]): void;
}

/** `saver`, noting each pack in the journal before storing it. */
export function journaledSaver(saver: Saver, journal: Pick<PackJournal, 'storing'>): Saver {
  return {
    async save(h, data, opts) {
      if (h.type === 'data') await journal.storing(h.name);
      return saver.save(h, data, opts);
    },
    ...preparing(saver),
  };
}

export interface AdoptResult {
  /** Packs now listed in a new index file. */
  adopted: IndexPack[];
  /** Packs already indexed, missing, or unreadable (left to `check` and `prune`). */
  skipped: { id: ID; why: 'indexed' | 'missing' | 'unreadable' }[];
}

/**
 * Reads the headers of those `packs` that no index lists and writes one index file for the
 * readable ones (each header decrypts and accounts for the pack's exact size). Requires the
 * index to be loaded. A pack that is gone, or damaged, is skipped, never indexed.
 */
export async function adoptPacks(repo: Repository, packs: readonly ID[], signal?: AbortSignal): Promise<AdoptResult> {
  const result: AdoptResult = { adopted: [], skipped: [] };
  const todo: ID[] = [];
  for (const id of new Set(packs)) {
    if (repo.index.hasPack(id)) result.skipped.push({ id, why: 'indexed' });
    else todo.push(id);
  }
  await mapLimit(todo, 4, async (id) => {
    try {
      const { size } = await repo.backend.stat({ type: 'data', name: id }, { signal });
      const blobs = await readPackHeader(repo.backend, repo.key, id, size, signal);
      result.adopted.push({ id, blobs });
    } catch (e) {
      if (isNotFound(e)) return void result.skipped.push({ id, why: 'missing' });
      if (e instanceof CairnError && e.code === 'BAD_PACK') return void result.skipped.push({ id, why: 'unreadable' });
      throw e;
    }
  });
  if (result.adopted.length) {
    await repo.saveIndex(result.adopted, signal);
    for (const p of result.adopted) repo.index.addPack(p.id, p.blobs);
  }
  return result;
}
