// The coordinator's side of the saver protocol (saver-protocol.ts): a FileSaverPool over
// started saver threads. Jobs go to the thread with the least work queued (bytes not yet read,
// plus FILE_COST a file), one message per thread per turn; claims are answered synchronously.
// By file count, one thread's queue could hold a few 10 MB files where another's held text
// files, and at the end of a backup one saver would work on alone while the others idled.

import { FILE_GARBAGE, smallGarbageMade } from '../memory/garbage';
import { CairnError, deserializeError } from '../errors';
import { macrotask } from '../concurrency/concurrency';
import { PackEntries } from '../pack/entries';
import type { FileJob, FileSaved } from './file-saver';
import type { FileSaverPool, PoolHooks } from './pool';
import type { FromSaver, JobResult, ToSaver } from './saver-protocol';

/** A started saver thread as the coordinator sees it. */
export interface SaverThread {
  post(m: ToSaver): void;
  terminate(): void | Promise<unknown>;
}

export interface ThreadPool {
  pool: FileSaverPool;
  /** Hand every message from thread `i` to this. */
  receive(i: number, m: FromSaver): void;
  /** Thread `i` crashed: fail everything it held. */
  died(i: number, error: unknown): void;
}

interface Job {
  resolve: (r: FileSaved) => void;
  reject: (e: unknown) => void;
  onBytes?: (n: number) => void;
  /** Bytes already reported through onBytes. */
  reported: number;
  thread: number;
  /** This job's part of its thread's queued work (see FILE_COST): what is not reported read yet. */
  work: number;
}

interface Flush {
  resolve: () => void;
  reject: (e: unknown) => void;
  thread: number;
}

/**
 * A file's cost beyond its bytes, in bytes, for balancing the threads' queues: ~0.25 ms of
 * opening, reading and bookkeeping per file, what a saver hashes and seals of ~30 KB meanwhile.
 */
const FILE_COST = 32 << 10;

class Coordinator {
  readonly #threads: SaverThread[];
  readonly #hooks: PoolHooks;
  readonly #signal: AbortSignal | undefined;
  readonly #jobs = new Map<number, Job>();
  readonly #flushes = new Map<number, Flush>();
  readonly #queued: number[];
  readonly #work: number[];
  #outbox: { jobId: number; job: FileJob }[][];
  #nextJob = 0;
  #nextFlush = 0;
  #fatal: unknown;
  #closing = false;

  constructor(threads: SaverThread[], hooks: PoolHooks, signal?: AbortSignal) {
    this.#threads = threads;
    this.#hooks = hooks;
    this.#signal = signal;
    this.#queued = threads.map(() => 0);
    this.#work = threads.map(() => 0);
    this.#outbox = threads.map(() => []);
    signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  readonly #onAbort = () => this.#threads.forEach((t) => t.post({ type: 'abort' }));

  readonly receive = (i: number, m: FromSaver): void => {
    switch (m.type) {
      case 'claim':
        this.#threads[i]!.post({ type: 'claimed', reqId: m.reqId, results: m.ids.map((id) => this.#hooks.claim(id)) });
        break;
      case 'bytes':
        this.#bytes(m.progress);
        break;
      case 'done':
        this.#done(m.results);
        break;
      case 'packSaved':
        this.#hooks.packSaved({ id: m.id, entries: PackEntries.fromHeader(m.header) }, m.size);
        break;
      case 'flushed':
        this.#flushed(m.reqId, m.error && deserializeError(m.error));
        break;
    }
  };

  #bytes(progress: [jobId: number, n: number][]): void {
    for (const [jobId, n] of progress) {
      const j = this.#jobs.get(jobId);
      if (!j) continue;
      j.reported += n;
      const w = Math.min(n, j.work);
      j.work -= w;
      this.#work[j.thread]! -= w;
      j.onBytes?.(n);
    }
  }

  #done(results: JobResult[]): void {
    // Each file's job, promises and messages are small JS garbage here, which V8 leaves
    // to grow for long in a backup of many small files. Counted as 4 KiB a file: a
    // collection every ~2000 files, which lowers the page's memory at no cost in time.
    smallGarbageMade(results.length * FILE_GARBAGE);
    for (const r of results) {
      const j = this.#jobs.get(r.jobId);
      if (!j) continue;
      this.#jobs.delete(r.jobId);
      this.#queued[j.thread]!--;
      this.#work[j.thread]! -= j.work;
      if (r.result) {
        if (r.result.size > j.reported) j.onBytes?.(r.result.size - j.reported);
        j.resolve(r.result);
      } else j.reject(deserializeError(r.error!));
    }
  }

  #flushed(reqId: number, error: unknown): void {
    const f = this.#flushes.get(reqId);
    if (!f) return;
    this.#flushes.delete(reqId);
    if (error) f.reject(error);
    else f.resolve();
  }

  readonly died = (i: number, e: unknown): void => {
    if (this.#closing) return;
    this.#fatal ??= e instanceof CairnError ? e : new CairnError('INTERNAL', `file saver thread failed: ${(e as Error)?.message ?? e}`, { cause: e });
    for (const [id, j] of this.#jobs) {
      if (j.thread !== i) continue;
      this.#jobs.delete(id);
      j.reject(this.#fatal);
    }
    for (const [id, f] of this.#flushes) {
      if (f.thread !== i) continue;
      this.#flushes.delete(id);
      f.reject(this.#fatal);
    }
  };

  /** The thread with the least work queued (ties: fewest files). */
  #leastBusy(): number {
    const work = this.#work,
      queued = this.#queued;
    let t = 0;
    for (let i = 1; i < this.#threads.length; i++) if (work[i]! < work[t]! || (work[i] === work[t] && queued[i]! < queued[t]!)) t = i;
    return t;
  }

  save(job: FileJob, onBytes?: (n: number) => void): Promise<FileSaved> {
    if (this.#fatal) return Promise.reject(this.#fatal);
    const t = this.#leastBusy();
    this.#queued[t]!++;
    const w = Math.max(0, job.size) + FILE_COST;
    this.#work[t]! += w;
    const jobId = this.#nextJob++;
    return new Promise<FileSaved>((resolve, reject) => {
      this.#jobs.set(jobId, { resolve, reject, onBytes, reported: 0, thread: t, work: w });
      if (this.#outbox[t]!.push({ jobId, job }) === 1) macrotask(() => this.#send(t));
    });
  }

  #send(t: number): void {
    const batch = this.#outbox[t]!;
    this.#outbox[t] = [];
    this.#threads[t]!.post({ type: 'jobs', jobs: batch });
  }

  async flush(): Promise<void> {
    const one = (t: SaverThread, thread: number) =>
      new Promise<void>((resolve, reject) => {
        const reqId = this.#nextFlush++;
        this.#flushes.set(reqId, { resolve, reject, thread });
        t.post({ type: 'flush', reqId });
      });
    await Promise.all(this.#threads.map(one));
    if (this.#fatal) throw this.#fatal;
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    const gone = new CairnError('ABORTED', 'file saver pool closed');
    for (const j of this.#jobs.values()) j.reject(gone);
    for (const f of this.#flushes.values()) f.reject(gone);
    this.#jobs.clear();
    this.#flushes.clear();
    await Promise.all(this.#threads.map((t) => t.terminate()));
  }
}

export function threadPool(threads: SaverThread[], hooks: PoolHooks, opts: { queuePerThread?: number; signal?: AbortSignal } = {}): ThreadPool {
  const c = new Coordinator(threads, hooks, opts.signal);
  const pool: FileSaverPool = {
    concurrency: threads.length * (opts.queuePerThread ?? 64),
    save: (job, onBytes) => c.save(job, onBytes),
    flush: () => c.flush(),
    close: () => c.close(),
  };
  return { pool, receive: c.receive, died: c.died };
}
