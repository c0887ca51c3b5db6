// What a Node file-saver thread is started with (workerData); the messages themselves are
// core/archiver/saver-protocol.ts's, plus a thread's start-up answer.

import type { SerializedError } from '../../core/errors';
import type { FromSaver } from '../../core/archiver/saver-protocol';
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
  /** Files saved at once (the rest of the thread's queue waits). */
  parallel: number;
  /** backup --dry-run: packs are made but not stored. */
  dryRun?: boolean;
  /** The pack journal file to note each pack in before storing it (cli/backup/journal.ts). */
  journal?: string;
}

export type FromWorker = FromSaver | { type: 'ready' } | { type: 'initError'; error: SerializedError };
