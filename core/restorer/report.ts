// What a restore tells its caller: the errors, each naming the path it cost; the counters of
// restic 0.18's restore summary; the items as they complete (restic's `-vv` lines); progress.

import { serializeError, type ErrorCode } from '../errors';
import { ProgressTracker, type ProgressSnapshot } from '../progress';

export interface RestoreError {
  path: string;
  code: ErrorCode;
  message: string;
}

export interface RestoreResult {
  /** Files whose content this restore wrote (or found intact and completed), whole. */
  files: number;
  dirs: number;
  bytes: number;
  /** What could not be restored; a file named here is not left in the target. */
  errors: RestoreError[];
  /** Symlinks. */
  others?: number;
  /** Files left as they were: already intact, or not to be overwritten (restic's files_skipped). */
  skippedFiles?: number;
  skippedBytes?: number;
  /** Entries --delete removed (or would remove). */
  deleted?: number;
  /** With verify: the files read back and found right. */
  verified?: number;
  /** restic's summary counters: entries (files, folders, symlinks) to restore and restored, and their bytes (those found intact count as restored). */
  items?: { total: number; done: number; bytes: number; bytesDone: number };
}

/** restic's item actions (internal/restorer ItemAction). */
export type ItemAction = 'restored' | 'updated' | 'unchanged' | 'deleted';

export interface RestoreItem {
  action: ItemAction;
  /** '/' + path below the restored tree. */
  path: string;
  kind: 'file' | 'dir' | 'other';
  size: number;
}

/**
 * Progress counters beyond done/total (which count files and their bytes, for a UI): restic's
 * files/dirs totals and the skipped and deleted counts, in `extra`.
 */
export const PROGRESS_KEYS = {
  items: 'items',
  itemsDone: 'itemsDone',
  skippedFiles: 'skippedFiles',
  skippedBytes: 'skippedBytes',
  deleted: 'deleted',
} as const;

const pathString = (path: readonly string[]) => '/' + path.join('/');

export class RestoreReport {
  readonly errors: RestoreError[] = [];
  readonly progress: ProgressTracker;
  readonly #onItem?: (item: RestoreItem) => void;
  files = 0;
  dirs = 0;
  others = 0;
  bytes = 0;
  skippedFiles = 0;
  skippedBytes = 0;
  deleted = 0;

  constructor(onProgress?: (p: ProgressSnapshot) => void, onItem?: (item: RestoreItem) => void) {
    this.progress = new ProgressTracker('restoring', onProgress);
    this.#onItem = onItem;
  }

  fail(path: readonly string[], e: unknown): void {
    const s = serializeError(e);
    this.errors.push({ path: pathString(path), code: s.code, message: s.message });
    this.progress.errors++;
  }

  /** An entry to be restored, counted in restic's files/dirs total. */
  planned(): void {
    this.progress.add(PROGRESS_KEYS.items);
  }

  /** An entry completed (restic CompleteItem). */
  item(action: ItemAction, path: readonly string[], kind: RestoreItem['kind'], size = 0): void {
    if (action === 'deleted') {
      this.deleted++;
      this.progress.add(PROGRESS_KEYS.deleted);
    } else if (action !== 'unchanged') this.progress.add(PROGRESS_KEYS.itemsDone);
    this.#onItem?.({ action, path: pathString(path), kind, size });
  }

  /** A file left as it was. */
  skipped(path: readonly string[], size: number): void {
    this.skippedFiles++;
    this.skippedBytes += size;
    this.progress.add(PROGRESS_KEYS.skippedFiles);
    this.progress.add(PROGRESS_KEYS.skippedBytes, size);
    this.item('unchanged', path, 'file', size);
  }

  result(): RestoreResult {
    const { files, dirs, bytes, errors, others, skippedFiles, skippedBytes, deleted, progress: p } = this;
    const items = { total: p.extra[PROGRESS_KEYS.items] ?? 0, done: p.extra[PROGRESS_KEYS.itemsDone] ?? 0, bytes: p.total.bytes, bytesDone: p.done.bytes };
    return { files, dirs, bytes, errors, others, skippedFiles, skippedBytes, deleted, items };
  }
}
