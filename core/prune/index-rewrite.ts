// Rewriting the index without the packs prune deletes (restic MasterIndex.Rewrite): an index
// file that is full (50 000 blobs or more, and not oversized) and lists none of those packs
// stays as it is; every other file is obsolete, and the packs it lists that stay — each once,
// also when two files list it — go into new files of about 50 000 blobs, with the packs
// repacking made. The entries come from the index in memory, so no index file is read twice.
//
// Write order: every new file is stored before any obsolete one is deleted (the caller
// deletes them), so at every moment some index file lists every pack that stays.

import type { ID } from '../id';
import type { IndexPack } from '../index/index-file';
import type { MasterIndex } from '../index/master-index';
import type { PackedBlob } from '../pack/header';
import type { IndexFileInfo, Repository } from '../repository/repository';
import { throwIfAborted } from '../errors';

/** restic's indexMaxBlobs: an index file with this many blobs is full. */
export const INDEX_FULL_BLOBS = 50_000;
/** restic's Oversized: full plus the entries of one largest possible pack header. */
const INDEX_OVERSIZED_BLOBS = INDEX_FULL_BLOBS + Math.floor((16 * 1024 * 1024 + 4 - 36) / 37);

export interface IndexRewritePlan {
  /** Files left as they are. */
  keep: ID[];
  /** Files to delete once the new ones are stored. */
  obsolete: ID[];
  /** Pack numbers the new files list, in the order written. */
  packs: number[];
}

/** Which index files stay, which go, and which packs the new files must list. */
export function planIndexRewrite(files: ReadonlyMap<ID, IndexFileInfo>, excluded: Uint8Array): IndexRewritePlan {
  const plan: IndexRewritePlan = { keep: [], obsolete: [], packs: [] };
  const listed = new Uint8Array(excluded.length);
  const ids = [...files.keys()].sort();
  for (const id of ids) {
    const f = files.get(id)!;
    if (f.blobs >= INDEX_FULL_BLOBS && f.blobs < INDEX_OVERSIZED_BLOBS && !f.packs.some((p) => excluded[p])) {
      plan.keep.push(id);
      for (const p of f.packs) listed[p] = 1;
    } else plan.obsolete.push(id);
  }
  for (const id of plan.obsolete) {
    for (const p of files.get(id)!.packs) {
      if (excluded[p] || listed[p]) continue;
      listed[p] = 1;
      plan.packs.push(p);
    }
  }
  return plan;
}

export interface WriteIndexOptions {
  signal?: AbortSignal;
  onSaved?: (id: ID) => void;
}

/**
 * Stores the new index files: the planned packs (entries from `index`), then `extra` (new
 * packs). Returns their IDs. At most two files are being encoded or stored at once.
 */
export async function writeIndexFiles(
  repo: Repository,
  index: MasterIndex,
  packs: readonly number[],
  extra: readonly IndexPack[],
  opts: WriteIndexOptions = {},
): Promise<ID[]> {
  const saved: ID[] = [];
  const pending = new Set<Promise<void>>();
  let failure: { e: unknown } | undefined;
  let batch: IndexPack[] = [];
  let blobs = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const file = batch;
    batch = [];
    blobs = 0;
    while (pending.size >= 2) await Promise.race(pending);
    if (failure) throw failure.e;
    throwIfAborted(opts.signal);
    const p: Promise<void> = repo.saveIndex(file, opts.signal).then(
      (id) => {
        saved.push(id);
        opts.onSaved?.(id);
        pending.delete(p);
      },
      (e: unknown) => {
        failure ??= { e };
        pending.delete(p);
      },
    );
    pending.add(p);
  };
  const add = async (pack: IndexPack) => {
    batch.push(pack);
    blobs += pack.blobs.length;
    if (blobs >= INDEX_FULL_BLOBS) await flush();
  };
  for (const p of packs) await add({ id: index.packIDs()[p]!, blobs: packBlobs(index, p) });
  for (const p of extra) await add(p);
  await flush();
  await Promise.all(pending);
  if (failure) throw failure.e;
  return saved;
}

function packBlobs(index: MasterIndex, pack: number): PackedBlob[] {
  return index.packEntries(pack).map((e) => ({
    type: index.entryType(e),
    id: index.entryID(e),
    offset: index.entryOffset(e),
    length: index.entryLength(e),
    uncompressedLength: index.entryUncompressedLength(e),
  }));
}
