// A backup's warnings: what could not be saved (an unreadable file, a folder that vanished, a
// file that changed while read) is reported and left out, and the backup goes on, as restic's
// archiver does with its Error callback. Each warning counts as an error in the progress.

import { serializeError, type ErrorCode } from '../errors';
import type { ProgressTracker } from '../progress';

export interface BackupWarning {
  path: string;
  code: ErrorCode;
  message: string;
  /** The repository, not the source, could not be read: part of the parent (restic exits 3 for it too). */
  repository?: true;
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
  readonly warn = (path: string, e: unknown): void => this.#add({ path, ...fields(e) });

  /** Records what could not be read of the repository (the parent) while saving `path`. */
  readonly warnRepository = (path: string, e: unknown): void => this.#add({ path, ...fields(e), repository: true });

  #add(w: BackupWarning): void {
    this.list.push(w);
    this.#progress.errors++;
    this.#listener?.(w);
  }
}

function fields(e: unknown): Pick<BackupWarning, 'code' | 'message'> {
  const s = serializeError(e);
  return { code: s.code, message: s.message };
}
