// `repair index` (restic internal/repository/repair_index.go): the index rebuilt from the pack
// files themselves. Packs the index lacks, or lists with a size other than the stored one, get
// their headers read and are indexed anew; packs the index lists but the backend does not have
// leave it; unreadable index files are removed. With `readAllPacks` every pack's header is read
// and every old index file replaced.

import { CairnError, serializeError } from '../errors';
import type { ID } from '../id';
import { decodeIndex, type IndexPack } from '../index/index-file';
import { expectedPackSize, readPackHeader } from '../pack/reader';
import type { PackedBlob } from '../pack/header';
import { mapLimit } from '../concurrency/concurrency';
import { rewriteIndexes, saveIndexFiles } from '../repository/index-rewrite';
import type { Repository } from '../repository/repository';
import { silentPrinter, type Printer } from '../progress/printer';

export interface RepairIndexOptions {
  readAllPacks?: boolean;
  signal?: AbortSignal;
  printer?: Printer;
  onProgress?: (done: number, total: number) => void;
}

export interface RepairIndexResult {
  /** Packs whose headers were read into the new index. */
  indexed: ID[];
  /** Packs the index listed that are gone (or were re-read). */
  removedFromIndex: ID[];
  /** Packs whose header could not be read: left out of the index (prune deletes them). */
  incomplete: ID[];
  indexFilesWritten: ID[];
  indexFilesRemoved: ID[];
}

interface IndexState {
  /** Readable index files. */
  readable: ID[];
  /** Unreadable index files (removed at the end). */
  obsolete: ID[];
  /** Each indexed pack's size as its index entries imply. */
  sizes: Map<ID, number>;
}

async function loadIndexState(repo: Repository, opts: RepairIndexOptions, pr: Printer): Promise<IndexState> {
  const all = await repo.listIDs('index', opts.signal);
  if (opts.readAllPacks) return { readable: [], obsolete: all, sizes: new Map() };
  pr.p('loading indexes...');
  const packs = new Map<ID, PackedBlob[]>();
  const state: IndexState = { readable: [], obsolete: [], sizes: new Map() };
  await mapLimit(all, 8, async (id) => {
    try {
      for (const p of decodeIndex(await repo.loadJSON('index', id, opts.signal), id)) packs.set(p.id, [...(packs.get(p.id) ?? []), ...p.blobs]);
      state.readable.push(id);
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      pr.e(`removing invalid index ${id}: ${serializeError(e).message}`);
      state.obsolete.push(id);
    }
  });
  for (const [id, blobs] of packs) state.sizes.set(id, expectedPackSize(blobs));
  return state;
}

export async function repairIndex(repo: Repository, opts: RepairIndexOptions = {}): Promise<RepairIndexResult> {
  const pr = opts.printer ?? silentPrinter;
  const { signal } = opts;
  const state = await loadIndexState(repo, opts, pr);
  pr.p('getting pack files to read...');
  const toRead = new Map<ID, number>();
  const remove = new Set<ID>();
  const fromIndex = new Map(state.sizes);
  for await (const fi of repo.backend.list('data', { signal })) {
    const want = fromIndex.get(fi.name);
    if (want === undefined || want !== fi.size) {
      toRead.set(fi.name, fi.size);
      remove.add(fi.name);
    }
    if (want === undefined) pr.e(`adding pack file to index ${fi.name}`);
    else if (want !== fi.size) pr.e(`reindexing pack file ${fi.name} with unexpected size ${fi.size} instead of ${want}`);
    fromIndex.delete(fi.name);
  }
  for (const id of fromIndex.keys()) {
    remove.add(id);
    pr.e(`removing not found pack file ${id}`);
  }
  const { indexed, incomplete } = await readHeaders(repo, toRead, opts, pr);
  const written = await saveIndexFiles(repo, indexed, signal);
  pr.p('rebuilding index');
  const rw = await rewriteIndexes(repo, {
    exclude: remove,
    indexes: state.readable,
    obsolete: state.obsolete,
    signal,
    onRemoveError: (id, e) => pr.v(`failed to remove index ${id}: ${serializeError(e).message}`),
  });
  return {
    indexed: indexed.map((p) => p.id),
    removedFromIndex: [...remove].filter((id) => !indexed.some((p) => p.id === id)),
    incomplete,
    indexFilesWritten: [...written, ...rw.written],
    indexFilesRemoved: rw.removed,
  };
}

/** Reads the headers of `packs` (ID → stored size); packs whose header fails are `incomplete`. */
async function readHeaders(
  repo: Repository,
  packs: Map<ID, number>,
  opts: RepairIndexOptions,
  pr: Printer,
): Promise<{ indexed: IndexPack[]; incomplete: ID[] }> {
  const indexed: IndexPack[] = [];
  const incomplete: ID[] = [];
  if (packs.size === 0) return { indexed, incomplete };
  pr.p('reading pack files');
  let done = 0;
  await mapLimit(packs, Math.max(2, repo.backend.connections), async ([id, size]) => {
    try {
      indexed.push({ id, blobs: await readPackHeader(repo.backend, repo.key, id, size, opts.signal) });
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      incomplete.push(id);
      pr.v(`skipped incomplete pack file: ${id}`);
    }
    opts.onProgress?.(++done, packs.size);
  });
  return { indexed, incomplete };
}
