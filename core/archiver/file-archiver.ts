// One file of the walk, on the coordinator: reused from the parent snapshot when unchanged
// (change-detection.ts) and all its blobs are indexed, else handed to the file-saver pool,
// which reads, chunks and stores it where the bytes are (restic archiver.save's file case).
// A file that cannot be opened or read is reported and left out of the snapshot, as restic
// does; one that changed while it was read is stored as read, with a warning.

import { CairnError } from '../errors';
import type { Node } from '../data';
import type { ID } from '../id';
import type { ProgressTracker } from '../progress';
import { NO_ITEM_STATS, type BackupStats, type CompletedItem } from './backup-stats';
import { unchanged } from './change-detection';
import type { FileSaved } from './file-saver';
import type { LazyPool } from './lazy-pool';
import type { FileRef, SourceEntry } from './source';

export interface FileArchiverDeps {
  /** Is this data blob in the index? */
  hasData(id: ID): boolean;
  pool: LazyPool;
  stats: BackupStats;
  progress: ProgressTracker;
  warn(path: string, e: unknown): void;
  /** Read every file, whatever the parent says (restic --force). */
  force?: boolean;
  /** Also compare ctime and inode with the parent. */
  strict?: boolean;
  onItem?: (item: CompletedItem) => void;
  signal?: AbortSignal;
}

/** An error that leaves one file out instead of failing the backup. */
function isSourceProblem(e: unknown): e is CairnError {
  return e instanceof CairnError && (e.code === 'SOURCE_READ' || e.code === 'NOT_FOUND');
}

export class FileArchiver {
  readonly #d: FileArchiverDeps;

  constructor(deps: FileArchiverDeps) {
    this.#d = deps;
  }

  /**
   * The file's node, or undefined when it is left out. `old` is the same path's node in the
   * parent. `started` is called once a saver takes the file (not for a reused one).
   */
  async save(entry: SourceEntry, old: Node | undefined, started: () => void): Promise<Node | undefined> {
    const t0 = this.#d.onItem ? Date.now() : 0;
    const reused = this.#reuse(entry, old);
    if (reused) return reused;
    const opened = await this.#open(entry);
    if (!opened) return undefined;
    const saved = await this.#read(entry, opened.ref, started);
    if (!saved) return undefined;
    this.#account(entry, old, saved, t0);
    return { ...entry.node, size: saved.size, content: saved.content };
  }

  #reuse(entry: SourceEntry, old: Node | undefined): Node | undefined {
    const d = this.#d;
    if (!old || d.force || !unchanged(old, entry, d.strict ?? false) || !old.content!.every((id) => d.hasData(id))) return undefined;
    d.stats.file('unmodified', entry.size);
    d.progress.done.files++;
    d.progress.done.bytes += entry.size;
    d.progress.tick();
    d.onItem?.({ path: entry.path, type: 'file', action: 'unchanged', stats: NO_ITEM_STATS, durationMs: 0 });
    return { ...entry.node, size: entry.size, content: old.content };
  }

  /** The ref to read: `entry.ref`, or what `entry.open()` gives; undefined (warned) if it cannot be opened. */
  async #open(entry: SourceEntry): Promise<{ ref: FileRef } | undefined> {
    if (!entry.open) return { ref: entry.ref };
    try {
      return { ref: await entry.open() };
    } catch (e) {
      if (!isSourceProblem(e)) throw e;
      this.#d.warn(entry.path, e);
      return undefined;
    }
  }

  async #read(entry: SourceEntry, ref: FileRef, started: () => void): Promise<FileSaved | undefined> {
    const d = this.#d;
    const { pool, files } = await d.pool.get();
    await files.acquire(d.signal);
    started();
    d.progress.current.add(entry.path);
    const onBytes = (n: number) => {
      d.progress.done.bytes += n;
      d.progress.tick();
    };
    const save = (ref: FileRef) => pool.save({ ref, path: entry.path, size: entry.size }, onBytes, d.signal);
    try {
      return await save(ref).catch(async (e) => {
        // The ref went stale (the file changed after it was listed): read it as it is now.
        if (!(entry.reopen && e instanceof CairnError && e.code === 'SOURCE_READ' && e.detail['domError'] === 'NotReadableError')) throw e;
        return save(await entry.reopen());
      });
    } catch (e) {
      if (!isSourceProblem(e)) throw e;
      d.warn(entry.path, e);
      return undefined;
    } finally {
      d.progress.current.delete(entry.path);
      files.release();
    }
  }

  #account(entry: SourceEntry, old: Node | undefined, saved: FileSaved, t0: number): void {
    const d = this.#d;
    d.stats.filesRead++;
    if (saved.changed && !entry.stream) {
      const why = `${entry.path}: file changed while it was read (${entry.size} → ${saved.size} bytes); saved what was read`;
      d.warn(entry.path, new CairnError('SOURCE_CHANGED', why));
    }
    const added = { ...NO_ITEM_STATS, dataBlobs: saved.blobsNew, dataSize: saved.bytesNew, dataSizeInRepo: saved.bytesStored };
    d.stats.file(old ? 'changed' : 'new', saved.size, added);
    d.progress.done.files++;
    d.progress.add(old ? 'filesChanged' : 'filesNew');
    d.onItem?.({ path: entry.path, type: 'file', action: old ? 'modified' : 'new', stats: added, durationMs: Date.now() - t0 });
  }
}
