// Messages between the backup coordinator (the engine worker) and its file-saver workers.
// File bytes never cross: savers read, chunk, encrypt and upload themselves; only IDs,
// counters and index entries travel (the model is cli/pool/messages.ts).

import type { SerializedError } from '../../core/errors';
import type { FileJob, FileSaved } from '../../core/archiver/file-saver';
import type { IndexPack } from '../../core/index/index-file';
import type { CompressionMode } from '../../core/repository/blob-codec';
import type { RepoLocation } from '../api';

export interface SaverInit {
  key: { encrypt: Uint8Array; macK: Uint8Array; macR: Uint8Array };
  polynomial: bigint;
  version: number;
  compression: CompressionMode;
  packSize?: number;
  /** Opened by the saver itself: directory handles and S3 settings are cloneable. */
  location: RepoLocation;
  uploads: number;
  /** Benchmarks only: force a SHA-256 implementation instead of timing both. */
  sha256?: 'auto' | 'webcrypto' | 'wasm';
}

export type ToSaver =
  | { type: 'init'; init: SaverInit }
  | { type: 'job'; jobId: number; job: FileJob }
  | { type: 'claimed'; reqId: number; results: boolean[] }
  | { type: 'flush'; reqId: number };

export type FromSaver =
  | { type: 'ready' }
  | { type: 'initError'; error: SerializedError }
  | { type: 'claim'; reqId: number; ids: string[] }
  | { type: 'bytes'; jobId: number; n: number }
  | { type: 'done'; jobId: number; result: FileSaved }
  | { type: 'failed'; jobId: number; error: SerializedError }
  | { type: 'packSaved'; pack: IndexPack; size: number }
  | { type: 'flushed'; reqId: number; error?: SerializedError };
