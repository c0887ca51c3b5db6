// A backup's warnings: what could not be saved (an unreadable file, a folder that vanished, a
// file that changed while read) is reported and left out, and the backup goes on, as restic's
// archiver does with its Error callback. Each warning counts as an error in the progress.

import { serializeError, type ErrorCode } from '../errors';
import type { ProgressTracker } from '../progress';

export interface BackupWarning {
  path: string;
  code: ErrorCode;
  message: string;
}

export class WarningLog {
  readonly list: BackupWarning[] = [];
  readonly #progress: ProgressTracker;
  readonly #listener: ((w: BackupWarning) => void) | undefined;

  constructor(progress: ProgressTracker, listener?: (w: BackupWarning) => void) {
    this.#progress = progress;
    this.#listener = listener;
  }

  /** Records `e` (any error; its code if it is a CairnError) against `path`. */
  readonly warn = (path: string, e: unknown): void => {
    const s = serializeError(e);
    const w = { path, code: s.code, message: s.message };
    this.list.push(w);
    this.#progress.errors++;
    this.#listener?.(w);
  };
}
