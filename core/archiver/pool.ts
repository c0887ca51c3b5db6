// Where file contents get saved. The archiver hands file jobs to a FileSaverPool and gets
// back content IDs; the pool decides the threads. InProcessPool runs FileSavers on the
// calling thread (tests, small jobs); cli/ and workers/ provide pools of worker threads that
// run the same FileSaver next to the bytes they read.

import type { Saver } from '../backend/backend';
import type { Pol } from '../chunker/polynomial';
import type { Key } from '../crypto/keys';
import type { ID } from '../id';
import type { SavedPack } from '../index/index-file';
import type { CompressionMode } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import { FileSaver, type FileJob, type FileSaved } from './file-saver';
import type { FileContentReader } from './source';

/** What every pool reports back to the coordinator. */
export interface PoolHooks {
  /** Synchronous on the coordinator: should the asker store this data blob? */
  claim(id: ID): boolean;
  /** A data pack is stored; index its blobs. */
  packSaved(pack: SavedPack, size: number): void;
}

/** Everything a saver needs to write blobs (cloneable except `saver`/`reader`). */
export interface SaverSettings {
  key: Key;
  polynomial: Pol;
  version: number;
  compression: CompressionMode;
  packSize?: number;
}

export interface FileSaverPool {
  /** How many jobs the archiver should keep in flight. */
  readonly concurrency: number;
  save(job: FileJob, onBytes?: (n: number) => void, signal?: AbortSignal): Promise<FileSaved>;
  /** Finishes open packs; resolves once every pack is stored and reported via packSaved. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export type PoolFactory = (settings: SaverSettings, hooks: PoolHooks, signal?: AbortSignal) => Promise<FileSaverPool>;

export interface InProcessPoolOptions {
  saver: Saver;
  reader: FileContentReader;
  concurrency?: number;
  uploads?: number;
}

/** Saves files on the calling thread. */
export function inProcessPool(opts: InProcessPoolOptions): PoolFactory {
  return async (settings, hooks, signal) => {
    const packs = new PackerManager({
      key: settings.key,
      saver: opts.saver,
      packSize: settings.packSize,
      uploads: opts.uploads,
      onPackSaved: (pack, size) => hooks.packSaved(pack, size),
      signal,
    });
    const saver = new FileSaver({ ...settings, packs, reader: opts.reader, claim: async (id) => hooks.claim(id) });
    return {
      concurrency: opts.concurrency ?? 4,
      save: (job, onBytes, sig) => saver.save(job, onBytes, sig ?? signal),
      flush: () => packs.flush(),
      close: async () => {},
    };
  };
}
