// Repacking (restic repository/repack.go): read the packs being repacked, and store each blob
// still to keep once more, in new packs, through the repository's packer. Every blob is
// decrypted, decompressed and hashed before its copy counts — a damaged blob stops prune
// before anything is deleted. A blob that stays as it is (already compressed, or data with
// compression not asked for) is copied sealed as it was: same key, already authenticated.
// Uncompressed trees (v2), and uncompressed data with `compressData`, are compressed and
// sealed anew — always, as restic does, so the new pack is not "uncompressed" again.
//
// New packs are only stored here: the index rewrite lists them (index files are written
// on the way only for every 50 000 blobs, restic's full index). Until then they are packs no
// index lists, which a later prune deletes — harmless, the old packs still hold the blobs.

import { CairnError, throwIfAborted } from '../errors';
import { compress } from '../compress';
import { sealInto, EXTENSION } from '../crypto/seal';
import type { ID } from '../id';
import type { IndexPack } from '../index/index-file';
import type { MasterIndex } from '../index/master-index';
import { decodeBlob } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import type { Repository } from '../repository/repository';
import { mapLimit } from '../concurrency/concurrency';

export interface RepackOptions {
  signal?: AbortSignal;
  /** Packs read at once (default: the backend's connections less one, at least one). */
  downloads?: number;
  /** Compress uncompressed data blobs too (restic --repack-uncompressed). */
  compressData?: boolean;
  /** New packs per index file written during repacking (restic's full index: 50 000 blobs). */
  indexBlobs?: number;
  onPackRead?: (bytes: number) => void;
  onPackRepacked?: () => void;
  onPackWritten?: (bytes: number) => void;
}

export interface RepackResult {
  /** New packs no index file lists yet. */
  unindexed: IndexPack[];
  /** Index files written for new packs (each full). */
  indexFiles: ID[];
}

/** Gaps between wanted blobs above this are skipped with a new request (restic maxUnusedRange). */
const MAX_UNUSED_RANGE = 1 << 20;

/**
 * Copies the blobs marked in `keep` (per canonical entry of `index`; cleared as they are
 * copied) out of `packs` (pack numbers) into new packs. Throws if a marked blob was not found.
 */
export async function repack(
  repo: Repository,
  index: MasterIndex,
  packs: readonly number[],
  keep: Uint8Array,
  opts: RepackOptions = {},
): Promise<RepackResult> {
  const { signal } = opts;
  const result: RepackResult = { unindexed: [], indexFiles: [] };
  let unindexedBlobs = 0;
  const packer = new PackerManager({
    key: repo.key,
    saver: repo.backend,
    packSize: repo.packSize,
    signal,
    onPackSaved: async (pack, size) => {
      opts.onPackWritten?.(size);
      result.unindexed.push({ id: pack.id, blobs: pack.entries.blobs() });
      unindexedBlobs += pack.entries.count;
      if (unindexedBlobs < (opts.indexBlobs ?? 50_000)) return;
      const full = result.unindexed.splice(0);
      unindexedBlobs = 0;
      result.indexFiles.push(await repo.saveIndex(full, signal));
    },
  });
  const copier = new BlobCopier(repo, packer, opts.compressData === true);
  const downloads = opts.downloads ?? Math.max(1, repo.backend.connections - 1);
  await mapLimit(packs, downloads, async (pack) => {
    throwIfAborted(signal);
    const wanted = index.packEntries(pack).filter((e) => keep[index.canonicalEntry(e)]);
    for (const range of ranges(index, wanted)) {
      const bytes = await readRange(repo, index.packIDs()[pack]!, range.start, range.end, signal);
      opts.onPackRead?.(bytes.length);
      for (const e of range.entries) {
        const c = index.canonicalEntry(e);
        if (!keep[c]) continue; // another pack's copy was taken meanwhile
        keep[c] = 0;
        const at = index.entryOffset(e) - range.start;
        await copier.copy(index, e, bytes.subarray(at, at + index.entryLength(e)));
      }
    }
    opts.onPackRepacked?.();
  });
  await packer.flush();
  const left = keep.findIndex((k) => k !== 0);
  if (left >= 0) {
    throw new CairnError('INTERNAL', `prune: ${index.entryType(left)} blob ${index.entryID(left).slice(0, 8)} was not repacked (integrity check failed)`, {
      detail: { blob: index.entryID(left) },
    });
  }
  return result;
}

interface Range {
  start: number;
  end: number;
  entries: number[];
}

/** Wanted entries (in pack order) as reads: a new one where the gap to the next blob exceeds 1 MiB. */
export function ranges(index: MasterIndex, wanted: readonly number[]): Range[] {
  const out: Range[] = [];
  for (const e of wanted) {
    const start = index.entryOffset(e),
      end = start + index.entryLength(e);
    const last = out[out.length - 1];
    if (last && start >= last.end && start - last.end <= MAX_UNUSED_RANGE) {
      last.end = end;
      last.entries.push(e);
    } else out.push({ start, end, entries: [e] });
  }
  return out;
}

async function readRange(repo: Repository, packID: ID, start: number, end: number, signal?: AbortSignal): Promise<Uint8Array> {
  const bytes = await repo.backend.load({ type: 'data', name: packID }, { offset: start, length: end - start, signal });
  if (bytes.length !== end - start) {
    throw new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)} is shorter than its index says`, { detail: { pack: packID } });
  }
  return bytes;
}

/** Stores one verified blob into the packer: sealed as it was, or compressed and sealed anew. */
class BlobCopier {
  readonly #repo: Repository;
  readonly #packer: PackerManager;
  readonly #compressData: boolean;

  constructor(repo: Repository, packer: PackerManager, compressData: boolean) {
    this.#repo = repo;
    this.#packer = packer;
    this.#compressData = compressData;
  }

  async copy(index: MasterIndex, e: number, sealed: Uint8Array): Promise<void> {
    const type = index.entryType(e),
      id = index.entryID(e),
      ulen = index.entryUncompressedLength(e);
    const ref = { type, id, uncompressedLength: ulen, packID: index.packIDs()[index.entryPack(e)] };
    const key = this.#repo.key;
    const compressIt = this.#repo.version >= 2 && ulen === 0 && (type === 'tree' || this.#compressData);
    if (!compressIt) {
      // Copied first, then checked in place in the read buffer: a failure fails the packer,
      // which then never stores the pack holding the copy.
      return this.#packer.addWith(type, id, sealed.length, ulen, async (dst) => {
        dst.set(sealed);
        await decodeBlob(key, sealed, ref, true);
      });
    }
    const plain = await decodeBlob(key, sealed, ref, true);
    const z = compress(plain, type === 'data' && this.#repo.compression === 'max' ? 19 : 3);
    return this.#packer.addWith(type, id, z.length + EXTENSION, plain.length, (dst) => sealInto(key, z, dst));
  }
}
