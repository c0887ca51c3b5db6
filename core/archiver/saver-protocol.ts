// The protocol between a backup's coordinator and file-saver threads (worker_threads in
// Node, Web Workers in browsers), both sides, independent of the transport. File bytes never
// cross: savers read, chunk, encrypt and upload themselves; only jobs, IDs, counters and
// index entries travel — in batches, because with many small files a message per file costs
// more than saving it. A saver keeps a queue of jobs and saves `parallel` files at once, so
// one file's read or claim round trip overlaps another's hashing.

import { FILE_GARBAGE, smallGarbageMade } from '../memory/garbage';
import { CairnError, deserializeError, serializeError, type SerializedError } from '../errors';
import type { IndexPack } from '../index/index-file';
import type { PackerManager } from '../repository/packer-manager';
import { isSmallJob, type FileJob, type FileSaved, type FileSaver } from './file-saver';
import { macrotask } from '../concurrency/concurrency';
import type { FileSaverPool, PoolHooks } from './pool';

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
  | { type: 'packSaved'; pack: IndexPack; size: number }
  | { type: 'flushed'; reqId: number; error?: SerializedError };

/** Collects items and sends them as one message when `later` runs (default: end of this turn). */
export function batcher<T>(send: (items: T[]) => void, later: (f: () => void) => void = macrotask): (item: T) => void {
  let items: T[] = [];
  return (item) => {
    if (items.push(item) === 1) {
      later(() => {
        const out = items;
        items = [];
        send(out);
      });
    }
  };
}

export interface SaverEndpointOptions {
  post: (m: FromSaver) => void;
  packs: PackerManager;
  /** Large files saved at once. */
  parallel: number;
  /** Small files (see isSmallJob) saved at once besides those; default 32. */
  smallParallel?: number;
  makeSaver: (claim: (id: string) => Promise<boolean>) => FileSaver;
  /** When finished results go out (default: a macrotask later, so a burst of small files shares one message). */
  later?: (f: () => void) => void;
}

/** The saver thread's side: returns the handler for the coordinator's messages. */
export function saverEndpoint(opts: SaverEndpointOptions): (m: ToSaver) => void {
  const { post, packs } = opts;
  let nextReq = 0;
  const waiting = new Map<number, (r: boolean[]) => void>();
  // Claims go out once per task: files progress in separate I/O callbacks, and a claim per
  // message would make many small files cost a round trip each.
  const ask = batcher<{ id: string; resolve: (b: boolean) => void }>((b) => {
    const reqId = nextReq++;
    waiting.set(reqId, (results) => b.forEach((x, i) => x.resolve(results[i]!)));
    post({ type: 'claim', reqId, ids: b.map((x) => x.id) });
  });
  const saver = opts.makeSaver((id) => new Promise<boolean>((resolve) => ask({ id, resolve })));
  const finished = batcher<JobResult>((results) => post({ type: 'done', results }), opts.later);

  // Progress of long files at most every 200 ms; what a finished file read is in its result.
  const unsent = new Map<number, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const addBytes = (jobId: number, n: number) => {
    unsent.set(jobId, (unsent.get(jobId) ?? 0) + n);
    timer ??= setTimeout(() => {
      timer = undefined;
      if (unsent.size) post({ type: 'bytes', progress: [...unsent] });
      unsent.clear();
    }, 200);
  };

  const abort = new AbortController();
  const queue: { jobId: number; job: FileJob }[] = [];
  // Small files need no big buffer and spend most of their time waiting (open, read, claim):
  // many of them are saved at once, next to `parallel` large ones.
  let running = 0;
  let runningSmall = 0;
  const smallParallel = opts.smallParallel ?? 32;
  const pump = () => {
    for (let i = 0; i < queue.length;) {
      const small = isSmallJob(queue[i]!.job);
      if (small ? runningSmall >= smallParallel : running >= opts.parallel) {
        if (running >= opts.parallel && runningSmall >= smallParallel) return;
        i++;
        continue;
      }
      const { jobId, job } = queue.splice(i, 1)[0]!;
      if (small) runningSmall++;
      else running++;
      saver
        .save(job, (n) => addBytes(jobId, n), abort.signal)
        .then(
          (result) => finished({ jobId, result }),
          (e) => finished({ jobId, error: serializeError(e) }),
        )
        .finally(() => {
          unsent.delete(jobId);
          if (small) runningSmall--;
          else running--;
          pump();
        });
    }
  };

  return (m) => {
    switch (m.type) {
      case 'jobs':
        queue.push(...m.jobs);
        pump();
        break;
      case 'claimed':
        waiting.get(m.reqId)?.(m.results);
        waiting.delete(m.reqId);
        break;
      case 'flush':
        packs.flush().then(
          () => post({ type: 'flushed', reqId: m.reqId }),
          (e) => post({ type: 'flushed', reqId: m.reqId, error: serializeError(e) }),
        );
        break;
      case 'abort':
        abort.abort();
        break;
    }
  };
}

/** A started saver thread as the coordinator sees it. */
export interface SaverThread {
  post(m: ToSaver): void;
  terminate(): void | Promise<unknown>;
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

/**
 * A file's cost beyond its bytes, in bytes, for balancing the threads' queues: ~0.25 ms of
 * opening, reading and bookkeeping per file, what a saver hashes and seals of ~30 KB meanwhile.
 */
const FILE_COST = 32 << 10;

export interface ThreadPool {
  pool: FileSaverPool;
  /** Hand every message from thread `i` to this. */
  receive(i: number, m: FromSaver): void;
  /** Thread `i` crashed: fail everything it held. */
  died(i: number, error: unknown): void;
}

/**
 * The coordinator's side: a FileSaverPool over started threads. Jobs go to the thread with the
 * least work queued (bytes not yet read, plus FILE_COST a file), one message per thread per
 * turn; claims are answered synchronously. By file count, one thread's queue could hold a
 * few 10 MB files where another's held text files, and at the end of D1's backup one saver
 * worked on alone for ~1 s.
 */
export function threadPool(threads: SaverThread[], hooks: PoolHooks, opts: { queuePerThread?: number; signal?: AbortSignal } = {}): ThreadPool {
  const jobs = new Map<number, Job>();
  const flushes = new Map<number, { resolve: () => void; reject: (e: unknown) => void; thread: number }>();
  const queued = threads.map(() => 0);
  const work = threads.map(() => 0);
  const outbox = threads.map(() => [] as { jobId: number; job: FileJob }[]);
  let nextJob = 0;
  let nextFlush = 0;
  let fatal: unknown;
  let closing = false;

  const onAbort = () => threads.forEach((t) => t.post({ type: 'abort' }));
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const receive = (i: number, m: FromSaver) => {
    switch (m.type) {
      case 'claim':
        threads[i]!.post({ type: 'claimed', reqId: m.reqId, results: m.ids.map((id) => hooks.claim(id)) });
        break;
      case 'bytes':
        for (const [jobId, n] of m.progress) {
          const j = jobs.get(jobId);
          if (!j) continue;
          j.reported += n;
          const w = Math.min(n, j.work);
          j.work -= w;
          work[j.thread]! -= w;
          j.onBytes?.(n);
        }
        break;
      case 'done':
        // Each file's job, promises and messages are small JS garbage here, which V8 leaves
        // to grow for long (the engine's heap held ~44 MiB of it 30 s into D2). Counted as
        // 4 KiB a file: a collection every ~2000 files. D2 backup in Chromium, 2 runs each:
        // page process 290 / 303 → 265 / 280 MiB, the same 67.6 s median.
        smallGarbageMade(m.results.length * FILE_GARBAGE);
        for (const r of m.results) {
          const j = jobs.get(r.jobId);
          if (!j) continue;
          jobs.delete(r.jobId);
          queued[j.thread]!--;
          work[j.thread]! -= j.work;
          if (r.result) {
            if (r.result.size > j.reported) j.onBytes?.(r.result.size - j.reported);
            j.resolve(r.result);
          } else j.reject(deserializeError(r.error!));
        }
        break;
      case 'packSaved':
        hooks.packSaved(m.pack, m.size);
        break;
      case 'flushed': {
        const f = flushes.get(m.reqId);
        if (!f) break;
        flushes.delete(m.reqId);
        if (m.error) f.reject(deserializeError(m.error));
        else f.resolve();
        break;
      }
    }
  };

  const died = (i: number, e: unknown) => {
    if (closing) return;
    fatal ??= e instanceof CairnError ? e : new CairnError('INTERNAL', `file saver thread failed: ${(e as Error)?.message ?? e}`, { cause: e });
    for (const [id, j] of jobs) {
      if (j.thread !== i) continue;
      jobs.delete(id);
      j.reject(fatal);
    }
    for (const [id, f] of flushes) {
      if (f.thread !== i) continue;
      flushes.delete(id);
      f.reject(fatal);
    }
  };

  const pool: FileSaverPool = {
    concurrency: threads.length * (opts.queuePerThread ?? 64),
    save(job, onBytes) {
      if (fatal) return Promise.reject(fatal);
      let t = 0;
      for (let i = 1; i < threads.length; i++) if (work[i]! < work[t]! || (work[i] === work[t] && queued[i]! < queued[t]!)) t = i;
      queued[t]!++;
      const w = Math.max(0, job.size) + FILE_COST;
      work[t]! += w;
      const jobId = nextJob++;
      return new Promise<FileSaved>((resolve, reject) => {
        jobs.set(jobId, { resolve, reject, onBytes, reported: 0, thread: t, work: w });
        if (outbox[t]!.push({ jobId, job }) === 1) {
          macrotask(() => {
            const batch = outbox[t]!;
            outbox[t] = [];
            threads[t]!.post({ type: 'jobs', jobs: batch });
          });
        }
      });
    },
    async flush() {
      await Promise.all(
        threads.map(
          (t, i) =>
            new Promise<void>((resolve, reject) => {
              const reqId = nextFlush++;
              flushes.set(reqId, { resolve, reject, thread: i });
              t.post({ type: 'flush', reqId });
            }),
        ),
      );
      if (fatal) throw fatal;
    },
    async close() {
      if (closing) return;
      closing = true;
      opts.signal?.removeEventListener('abort', onAbort);
      const gone = new CairnError('ABORTED', 'file saver pool closed');
      for (const j of jobs.values()) j.reject(gone);
      for (const f of flushes.values()) f.reject(gone);
      jobs.clear();
      flushes.clear();
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
  return { pool, receive, died };
}
