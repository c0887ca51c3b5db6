// Saves directory listings as tree blobs (restic internal/archiver/tree_saver.go): encodes the
// nodes, stores a tree only the first time its ID is seen (by this backup or an earlier one),
// and puts each new tree into the repository's blob cache as it is sealed, so browsing the new
// snapshot reads none of them back. Tree blobs go into their own packs, whose buffer starts
// small: a tree is one directory's listing, so a backup's tree pack mostly stays far below the
// pack size.

import { encodeTree, type Node } from '../data';
import { hashID, type ID } from '../id';
import type { Saver } from '../backend/backend';
import type { Key } from '../crypto/keys';
import type { SavedPack } from '../index/index-file';
import type { BlobCache } from '../repository/blob-cache';
import { encodeBlob, type CompressionMode } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import { NO_ITEM_STATS, type ItemStats } from './backup-stats';

export interface TreeSaverOptions {
  key: Key;
  version: number;
  compression: CompressionMode;
  packSize?: number;
  saver: Saver;
  /** Should this tree be stored (no one has it, or is storing it)? */
  claim(id: ID): boolean;
  onPackSaved(pack: SavedPack, size: number): void;
  /** Where new trees are also kept, if it wants trees. */
  cache?: BlobCache;
  signal?: AbortSignal;
}

export interface SavedTree {
  id: ID;
  /** What storing it added (nothing when the tree was known). */
  stats: ItemStats;
}

/** First size of a tree pack's buffer; it doubles as trees come. */
const TREE_PACK_START = 64 * 1024;

export class TreeSaver {
  readonly #opts: TreeSaverOptions;
  readonly #packs: PackerManager;
  readonly #cache: BlobCache | undefined;
  readonly #caching = new Set<Promise<unknown>>();

  constructor(opts: TreeSaverOptions) {
    this.#opts = opts;
    this.#cache = opts.cache?.wants('tree') ? opts.cache : undefined;
    this.#packs = new PackerManager({
      key: opts.key,
      saver: opts.saver,
      packSize: opts.packSize,
      growFrom: TREE_PACK_START,
      onPackSaved: opts.onPackSaved,
      signal: opts.signal,
    });
  }

  save(nodes: Node[]): Promise<SavedTree> {
    return this.saveEncoded(encodeTree(nodes));
  }

  /** A tree already encoded (TreeBuilder, encodeTree). */
  async saveEncoded(bytes: Uint8Array): Promise<SavedTree> {
    const id = await hashID(bytes);
    if (!this.#opts.claim(id)) return { id, stats: NO_ITEM_STATS };
    const { key, version, compression } = this.#opts;
    const blob = await encodeBlob(key, 'tree', bytes, version, compression);
    await this.#packs.add('tree', id, blob.sealed, blob.uncompressedLength);
    if (this.#cache) this.#keep(this.#cache.put('tree', id, blob.sealed));
    return { id, stats: { ...NO_ITEM_STATS, treeBlobs: 1, treeSize: bytes.length, treeSizeInRepo: blob.sealed.length } };
  }

  /** Stores the open tree pack. */
  flush(): Promise<void> {
    return this.#packs.flush();
  }

  /** Resolves once the cache holds every tree saved so far. */
  async cached(): Promise<void> {
    await Promise.all(this.#caching);
  }

  #keep(put: Promise<unknown>): void {
    const settled = put.catch(() => {}); // a full cache never fails a backup
    this.#caching.add(settled);
    void settled.finally(() => this.#caching.delete(settled));
  }
}
