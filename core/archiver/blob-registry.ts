// The coordinator's view of which blobs exist: the master index (blobs in indexed packs)
// plus blobs some saver has claimed and is storing, or has stored in a pack no index file
// lists yet. Exactly one saver stores each new blob, whatever thread it runs on; everyone
// else just references it. Packs reported saved are queued for the next index file, and
// their blobs move into the master index only once that file is stored: the master index
// never claims what the repository's index files do not say (a backup that failed to write
// its index leaves the master index as the repository has it, and its packs to be adopted).

import type { ID } from '../id';
import type { SavedPack } from '../index/index-file';
import type { MasterIndex } from '../index/master-index';
import type { BlobType } from '../pack/header';
import { IdSet } from '../index/id-set';

export interface SavedPackStats {
  packs: number;
  blobs: number;
  bytes: number;
}

export class BlobRegistry {
  readonly #index: MasterIndex;
  /** Claimed and not yet in the master index, per type. */
  readonly #pending = { data: new IdSet(), tree: new IdSet() };
  #unindexed: SavedPack[] = [];
  #unindexedBlobs = 0;
  readonly stats: SavedPackStats = { packs: 0, blobs: 0, bytes: 0 };

  constructor(index: MasterIndex) {
    this.#index = index;
  }

  /** True if the caller must store the blob; false if it is stored or being stored. */
  claim(type: BlobType, id: ID): boolean {
    if (this.#pending[type].has(id) || this.#index.has(type, id)) return false;
    this.#pending[type].add(id);
    return true;
  }

  has(type: BlobType, id: ID): boolean {
    return this.#pending[type].has(id) || this.#index.has(type, id);
  }

  /** A pack is durably stored: queue it for the next index file. */
  packSaved(pack: SavedPack, size: number): void {
    this.#unindexed.push(pack);
    this.#unindexedBlobs += pack.entries.count;
    this.stats.packs++;
    this.stats.blobs += pack.entries.count;
    this.stats.bytes += size;
  }

  get unindexedBlobs(): number {
    return this.#unindexedBlobs;
  }

  /** An index file listing `packs` is stored: their blobs are in the master index now. */
  indexed(packs: readonly SavedPack[]): void {
    for (const pack of packs) {
      this.#index.addPack(pack.id, pack.entries);
      pack.entries.forEach((v) => this.#pending[v.type].deleteAt(v.header, v.idAt));
    }
  }

  /** Takes the packs not yet written to an index file. */
  takeUnindexed(): SavedPack[] {
    const out = this.#unindexed;
    this.#unindexed = [];
    this.#unindexedBlobs = 0;
    return out;
  }
}
