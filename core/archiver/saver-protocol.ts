// The protocol between a backup's coordinator and file-saver threads (worker_threads in
// Node, Web Workers in browsers), both sides, independent of the transport. File bytes never
// cross: savers read, chunk, encrypt and upload themselves; only jobs, IDs, counters and
// index entries travel — in batches, because with many small files a message per file costs
// more than saving it. A saver keeps a queue of jobs and saves `parallel` files at once, so
// one file's read or claim round trip overlaps another's hashing. The thread's side is
// saver-endpoint.ts, the coordinator's thread-pool.ts.

import type { SerializedError } from '../errors';
import type { FileJob, FileSaved } from './file-saver';

export interface JobResult {
  jobId: number;
  result?: FileSaved;
  error?: SerializedError;
}

export type ToSaver =
  | { type: 'jobs'; jobs: { jobId: number; job: FileJob }[] }
  | { type: 'claimed'; reqId: number; results: boolean[] }
  | { type: 'flush'; reqId: number }
  | { type: 'abort' };

export type FromSaver =
  | { type: 'claim'; reqId: number; ids: string[] }
  /** Progress of files still being read: bytes since the last report, per job. */
  | { type: 'bytes'; progress: [jobId: number, n: number][] }
  | { type: 'done'; results: JobResult[] }
  /** A pack is stored: `header` holds its plain header entries (pack/entries.ts), the compact form of its blob list. */
  | { type: 'packSaved'; id: string; header: Uint8Array<ArrayBuffer>; size: number }
  | { type: 'flushed'; reqId: number; error?: SerializedError };
