// Deleting files prune no longer needs (restic deleteFiles / ParallelRemove), a few at once.
// Packs: a pack that could not be deleted is only reported (an extra pack harms nothing; the
// next prune deletes it). Index files: the first failure stops prune, because the packs they
// list must not be deleted while an index still lists them.

import type { FileType, Remover } from '../backend/backend';
import { isNotFound, throwIfAborted } from '../errors';
import type { ID } from '../id';
import { mapLimit } from '../concurrency/concurrency';

export interface DeleteOptions {
  signal?: AbortSignal;
  concurrency?: number;
  /** Report failures through onError and go on (packs), instead of throwing the first (index files). */
  ignoreErrors?: boolean;
  onDeleted?: (id: ID) => void;
  onError?: (id: ID, e: unknown) => void;
}

/** Deletes `ids` of `type`; one already gone counts as deleted. Returns the IDs that could not be deleted. */
export async function deleteFiles(backend: Remover, type: Exclude<FileType, 'config'>, ids: readonly ID[], opts: DeleteOptions = {}): Promise<ID[]> {
  const failed: ID[] = [];
  await mapLimit(ids, Math.max(1, opts.concurrency ?? 4), async (id) => {
    throwIfAborted(opts.signal);
    try {
      await backend.remove({ type, name: id }, { signal: opts.signal });
    } catch (e) {
      if (!isNotFound(e)) {
        if (!opts.ignoreErrors || opts.signal?.aborted) throw e;
        failed.push(id);
        opts.onError?.(id, e);
        return;
      }
    }
    opts.onDeleted?.(id);
  });
  return failed;
}
