// Messages between the backup coordinator (main thread) and file-saver worker threads.
// File bytes never cross: workers read, chunk, encrypt and upload themselves; only IDs,
// counters and index entries travel. Jobs, results and progress travel in batches: with
// many small files a message per file costs more than saving the file.

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
  /** Files saved at once (the rest of the worker's queue waits). */
  parallel: number;
}

export interface JobResult {
  jobId: number;
  result?: FileSaved;
  error?: SerializedError;
}

export type ToWorker =
  | { type: 'jobs'; jobs: { jobId: number; job: FileJob }[] }
  | { type: 'claimed'; reqId: number; results: boolean[] }
  | { type: 'flush'; reqId: number }
  | { type: 'abort' }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'initError'; error: SerializedError }
  | { type: 'claim'; reqId: number; ids: string[] }
  /** Progress of files still being read: bytes since the last report, per job. */
  | { type: 'bytes'; progress: [jobId: number, n: number][] }
  | { type: 'done'; results: JobResult[] }
  | { type: 'packSaved'; pack: IndexPack; size: number }
  | { type: 'flushed'; reqId: number; error?: SerializedError };
