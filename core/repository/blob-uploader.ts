// Writing blobs outside a backup (copy, rewrite, repair): restic's WithBlobUploader. Each blob
// is encoded for this repository (its key, version and compression), packed, and indexed once
// its pack is stored; `finish` stores the last packs and writes the index files that list
// them, so the order packs → index → snapshot holds for whoever saves a snapshot afterwards.

import { throwIfAborted } from '../errors';
import { hashID, type ID } from '../id';
import type { SavedPack } from '../index/index-file';
import type { BlobType } from '../pack/header';
import { encodeBlob } from './blob-codec';
import { PackerManager } from './packer-manager';
import type { Repository } from './repository';

/** restic writes an index file once it lists this many blobs (index.go indexMaxBlobs). */
export const INDEX_MAX_BLOBS = 50_000;

export interface BlobUploaderOptions {
  signal?: AbortSignal;
  /** Packs uploaded at once. */
  uploads?: number;
}

export interface SavedBlob {
  id: ID;
  /** False when the repository (or this uploader) already had it. */
  stored: boolean;
  /** Sealed bytes written (0 when not stored). */
  length: number;
}

export interface UploadStats {
  blobs: number;
  /** Plain bytes of the stored blobs. */
  plainBytes: number;
  packs: number;
  packBytes: number;
  indexFiles: ID[];
}

export class BlobUploader {
  readonly #repo: Repository;
  readonly #packs: PackerManager;
  readonly #signal: AbortSignal | undefined;
  readonly #pending = new Set<string>();
  #unindexed: SavedPack[] = [];
  #unindexedBlobs = 0;
  readonly stats: UploadStats = { blobs: 0, plainBytes: 0, packs: 0, packBytes: 0, indexFiles: [] };

  constructor(repo: Repository, opts: BlobUploaderOptions = {}) {
    this.#repo = repo;
    this.#signal = opts.signal;
    this.#packs = new PackerManager({
      key: repo.key,
      saver: repo.backend,
      packSize: repo.packSize,
      uploads: opts.uploads ?? Math.min(4, Math.max(2, repo.backend.connections)),
      signal: opts.signal,
      onPackSaved: (pack, size) => this.#packSaved(pack, size),
    });
  }

  /** Is the blob in the repository's index or being stored by this uploader? */
  has(type: BlobType, id: ID): boolean {
    return this.#pending.has(type[0] + id) || this.#repo.index.has(type, id);
  }

  /**
   * Stores a blob unless it is known already; with `storeDuplicate` even when the index lists
   * it elsewhere (repair packs re-stores what a damaged pack held). `id` must be the plain
   * bytes' hash when given (restic trusts it too; callers pass IDs they verified).
   */
  async save(type: BlobType, plain: Uint8Array, id?: ID, opts: { storeDuplicate?: boolean } = {}): Promise<SavedBlob> {
    throwIfAborted(this.#signal);
    id ??= await hashID(plain);
    const key = type[0] + id;
    if (this.#pending.has(key) || (!opts.storeDuplicate && this.#repo.index.has(type, id))) return { id, stored: false, length: 0 };
    this.#pending.add(key);
    const repo = this.#repo;
    const enc = await encodeBlob(repo.key, type, plain, repo.version, repo.compression);
    await this.#packs.add(type, id, enc.sealed, enc.uncompressedLength);
    this.stats.blobs++;
    this.stats.plainBytes += plain.length;
    return { id, stored: true, length: enc.sealed.length };
  }

  async #packSaved(pack: SavedPack, size: number): Promise<void> {
    this.#repo.index.addPack(pack.id, pack.entries);
    this.stats.packs++;
    this.stats.packBytes += size;
    this.#unindexed.push(pack);
    this.#unindexedBlobs += pack.entries.count;
    if (this.#unindexedBlobs >= INDEX_MAX_BLOBS) await this.#writeIndex();
  }

  async #writeIndex(): Promise<void> {
    const packs = this.#unindexed;
    this.#unindexed = [];
    this.#unindexedBlobs = 0;
    if (packs.length) this.stats.indexFiles.push(await this.#repo.saveIndex(packs, this.#signal));
  }

  /** Stores the open packs and writes the index files for everything stored. */
  async finish(): Promise<UploadStats> {
    await this.#packs.flush();
    await this.#writeIndex();
    return this.stats;
  }
}
