// The files a restore is writing (restic's fileswriter.go): each opened on its first blob,
// written at the offsets its blobs go to, finished (metadata on the open file where the target
// can) after its last. Writes, creations and metadata are I/O: up to `writeConcurrency` of them
// run while the next blobs are decrypted, so a pack of many small files is not restored one
// file system call at a time.
//
// A file loses nothing silently: the first failure of any of its blobs or writes is reported
// with its path, and a failed file does not stay in the target looking restored: what this
// restore wrote of it is removed.

import { CairnError } from '../errors';
import { FILE_GARBAGE, smallGarbageMade } from '../memory/garbage';
import { Semaphore } from '../concurrency/semaphore';
import type { PlannedFile, Use } from './restore-plan';
import type { RestoreReport } from './report';
import { finishWriter, type FileWriter, type RestoreTarget } from './target';

/** A blob as it came out of its pack: its plain bytes (verified), or why not. */
export type Got = { plain: Uint8Array } | { error: unknown };

const isAbort = (e: unknown) => e instanceof CairnError && e.code === 'ABORTED';

export class FileWriters {
  readonly #slots: Semaphore;
  readonly #writing = new Set<Promise<void>>();
  #fatal?: { e: unknown };

  constructor(
    private readonly target: RestoreTarget,
    private readonly report: RestoreReport,
    private readonly signal: AbortSignal | undefined,
    writeConcurrency = 32,
  ) {
    this.#slots = new Semaphore(writeConcurrency);
  }

  /** A failure that is not one file's (the restore cannot go on), once one happened. */
  get fatal(): { e: unknown } | undefined {
    return this.#fatal;
  }

  /**
   * Starts writing one blob (or recording its failure) at one file position, once a write slot
   * is free; the write's promise goes into `writes` (it never rejects: see `fatal`).
   */
  async deliver(use: Use, got: Got, writes: Promise<void>[]): Promise<void> {
    await this.#slots.acquire(this.signal);
    const p: Promise<void> = this.#apply(use, got)
      .catch((e) => void (this.#fatal ??= { e }))
      .finally(() => {
        this.#slots.release();
        this.#writing.delete(p);
      });
    this.#writing.add(p);
    writes.push(p);
  }

  /** Waits for every write started. */
  async drain(): Promise<void> {
    while (this.#writing.size) await Promise.all(this.#writing);
  }

  async #apply(use: Use, got: Got): Promise<void> {
    const f = use.file;
    if (!f.failed) {
      if ('plain' in got) {
        try {
          await (await this.#writerOf(f)).write(use.offset, got.plain);
          this.report.progress.done.bytes += got.plain.length;
          this.report.bytes += got.plain.length;
        } catch (e) {
          this.#failFile(f, e);
        }
      } else this.#failFile(f, got.error);
    }
    if (--f.remaining === 0) await this.#finish(f);
  }

  #writerOf(f: PlannedFile): Promise<FileWriter> {
    // Opened by the file's first use: `remaining` still counts every write to come.
    return (f.writer ??= this.target.createFile(f.path, f.node.size ?? 0, { keep: f.keep, writes: f.remaining }));
  }

  #failFile(f: PlannedFile, e: unknown): void {
    if (f.failed) return;
    f.failed = true;
    this.report.fail(f.path, e);
  }

  async #finish(f: PlannedFile): Promise<void> {
    try {
      if (f.failed) await this.#discard(f);
      else {
        await finishWriter(await f.writer!, this.target, f.path, f.node);
        this.report.files++;
        this.report.item(f.keep ? 'updated' : 'restored', f.path, 'file', f.node.size ?? 0);
      }
    } catch (e) {
      if (isAbort(e)) throw e;
      const discard = !f.failed;
      this.#failFile(f, e);
      if (discard) await this.#discard(f).catch((e2: unknown) => this.report.fail(f.path, e2));
    } finally {
      // All its blobs are written (remaining is 0): the plan lives on until the restore ends,
      // its finished writers need not. A browser's writer holds file handles whose memory
      // (bench/probes/handle-memory.mjs) stays while reachable, so a restore of many small files
      // would hold memory in proportion to all of them.
      f.writer = undefined;
    }
    // Its writer, handles and promises are garbage now, most of it where V8 does not see it.
    smallGarbageMade(FILE_GARBAGE);
    this.report.progress.done.files++;
  }

  /**
   * Closes a failed file and removes what this restore wrote of it. A file it never opened is
   * not touched: nothing was made, or what was there before stays as it was.
   */
  async #discard(f: PlannedFile): Promise<void> {
    const w = await f.writer?.catch(() => undefined);
    if (!w) return;
    await (w.abort ? w.abort() : w.close());
    await this.target.remove?.(f.path);
  }
}
