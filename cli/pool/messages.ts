// Messages between the backup coordinator (main thread) and file-saver worker threads.
// File bytes never cross: workers read, chunk, encrypt and upload themselves; only IDs,
// counters and index entries travel.

import type { SerializedError } from '../../core/errors';
import type { FileJob, FileSaved } from '../../core/archiver/file-saver';
import type { IndexPack } from '../../core/index/index-file';
import type { CompressionMode } from '../../core/repository/blob-codec';
import type { BackendSpec } from '../location';

export interface WorkerInit {
  key: { encrypt: Uint8Array; macK: Uint8Array; macR: Uint8Array };
  polynomial: bigint;
  version: number;
  compression: CompressionMode;
  packSize?: number;
  backend: BackendSpec;
  uploads: number;
}

export type ToWorker =
  | { type: 'job'; jobId: number; job: FileJob }
  | { type: 'claimed'; reqId: number; results: boolean[] }
  | { type: 'flush'; reqId: number }
  | { type: 'abort' }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'initError'; error: SerializedError }
  | { type: 'claim'; reqId: number; ids: string[] }
  | { type: 'bytes'; jobId: number; n: number }
  | { type: 'done'; jobId: number; result: FileSaved }
  | { type: 'failed'; jobId: number; error: SerializedError }
  | { type: 'packSaved'; pack: IndexPack; size: number }
  | { type: 'flushed'; reqId: number; error?: SerializedError };
