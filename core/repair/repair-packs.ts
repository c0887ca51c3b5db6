// `repair packs` (restic internal/repository/repair_pack.go): the intact blobs of damaged packs
// are stored again in new packs, the damaged packs leave the index and are deleted. A blob is
// salvaged when it decrypts and hashes to its ID; the rest is gone, and `repair snapshots`
// then drops what referenced it. Blobs come from what the index lists for each pack and, when
// the pack's own header lists something else (a broken index entry), from the header too.

import { serializeError } from '../errors';
import type { ID } from '../id';
import type { PackedBlob } from '../pack/header';
import { readPackHeader } from '../pack/reader';
import { BlobUploader } from '../repository/blob-uploader';
import { rewriteIndexes } from '../repository/index-rewrite';
import { loadBlobsFromPack } from '../repository/pack-blobs';
import type { Repository } from '../repository/repository';
import { silentPrinter, type Printer } from '../progress/printer';

export interface RepairPacksOptions {
  signal?: AbortSignal;
  printer?: Printer;
  onProgress?: (done: number, total: number) => void;
}

export interface RepairPacksResult {
  /** Blobs stored again. */
  salvaged: number;
  /** Blobs that could not be read. */
  lost: { pack: ID; blob: PackedBlob }[];
  removedPacks: ID[];
}

const blobKey = (b: PackedBlob) => `${b.type}:${b.id}:${b.offset}:${b.length}:${b.uncompressedLength}`;

/** What the index lists for each of `ids`, in one pass over the master index. */
function indexedBlobs(repo: Repository, ids: ReadonlySet<ID>): Map<ID, PackedBlob[]> {
  const out = new Map<ID, PackedBlob[]>([...ids].map((id) => [id, []]));
  const seen = new Set<string>();
  for (const e of repo.index.entries()) {
    const list = out.get(e.packID);
    const key = e.packID + blobKey(e);
    if (!list || seen.has(key)) continue;
    seen.add(key);
    list.push({ type: e.type, id: e.id, offset: e.offset, length: e.length, uncompressedLength: e.uncompressedLength });
  }
  return out;
}

/** What each stored pack's header says, for those whose header can be read. */
async function headerBlobs(repo: Repository, ids: ReadonlySet<ID>, signal?: AbortSignal): Promise<Map<ID, PackedBlob[]>> {
  const out = new Map<ID, PackedBlob[]>();
  for await (const fi of repo.backend.list('data', { signal })) {
    if (!ids.has(fi.name)) continue;
    try {
      out.set(fi.name, await readPackHeader(repo.backend, repo.key, fi.name, fi.size, signal));
    } catch {
      // a broken header: salvage from the index entries alone
    }
  }
  return out;
}

export async function repairPacks(repo: Repository, ids: ReadonlySet<ID>, opts: RepairPacksOptions = {}): Promise<RepairPacksResult> {
  const pr = opts.printer ?? silentPrinter;
  const { signal } = opts;
  await repo.loadIndex({ signal });
  pr.p('salvaging intact data from specified pack files');
  const fromIndex = indexedBlobs(repo, ids);
  const fromHeader = await headerBlobs(repo, ids, signal);
  const uploader = new BlobUploader(repo, { signal });
  const result: RepairPacksResult = { salvaged: 0, lost: [], removedPacks: [] };
  const salvage = (pack: ID, blobs: PackedBlob[]) =>
    loadBlobsFromPack(
      repo,
      pack,
      blobs,
      async (blob, plain, error) => {
        if (!plain) {
          pr.e(`failed to load blob ${blob.id}: ${error?.message ?? 'unknown error'}`);
          result.lost.push({ pack, blob });
          return;
        }
        if ((await uploader.save(blob.type, plain, blob.id, { storeDuplicate: true })).stored) result.salvaged++;
      },
      { signal, whole: true },
    );
  let done = 0;
  for (const pack of ids) {
    const indexBlobs = fromIndex.get(pack) ?? [];
    await salvage(pack, indexBlobs);
    const header = fromHeader.get(pack);
    const same =
      header && header.length === indexBlobs.length && new Set(indexBlobs.map(blobKey)).size === new Set([...indexBlobs, ...header].map(blobKey)).size;
    if (header && !same) {
      pr.e(`repairing incomplete index entry for pack ${pack}`);
      await salvage(pack, header);
    }
    if (indexBlobs.length === 0 && !header?.length) pr.e(`no blobs found for pack ${pack}`);
    opts.onProgress?.(++done, ids.size);
  }
  await uploader.finish();
  await rewriteIndexes(repo, { exclude: ids, signal, onRemoveError: (id, e) => pr.e(`failed to remove index ${id}: ${serializeError(e).message}`) });
  pr.p('removing salvaged pack files');
  for (const pack of ids) {
    try {
      await repo.backend.remove({ type: 'data', name: pack }, { signal });
      result.removedPacks.push(pack);
    } catch (e) {
      pr.e(`failed to delete pack file ${pack}: ${serializeError(e).message}`);
    }
  }
  return result;
}
