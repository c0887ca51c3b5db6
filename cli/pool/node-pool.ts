// A FileSaverPool of worker threads (one per core by default). Jobs go to the worker with
// the shortest queue, in one message per worker per turn; claims are answered synchronously
// from the coordinator's BlobRegistry. Many jobs may wait in a worker's queue (cheap: a path
// and a size each) so small files stream through without a round trip each.

import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { CairnError, deserializeError } from '../../core/errors';
import type { FileJob, FileSaved } from '../../core/archiver/file-saver';
import type { FileSaverPool, PoolFactory } from '../../core/archiver/pool';
import { deferred } from '../../core/util/concurrency';
import type { BackendSpec } from '../location';
import type { FromWorker, ToWorker, WorkerInit } from './messages';

export interface NodePoolOptions {
  backend: BackendSpec;
  threads?: number;
  /** Files each worker saves at once (overlaps reading with hashing). */
  parallelPerWorker?: number;
  /** Files queued per worker (in flight from the archiver's point of view). */
  queuePerWorker?: number;
  uploadsPerWorker?: number;
}

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  // Bundled CLI: dist/cli/file-saver-worker.mjs sits next to cairn.mjs and inherits node's flags
  // (--cpu-prof profiles the workers too). From sources (tests): use tsx.
  if (here.endsWith('.ts')) return { url: new URL('./file-saver-worker.ts', here), execArgv: ['--import', 'tsx'] };
  return { url: new URL('./file-saver-worker.mjs', here), execArgv: undefined };
}

interface Job {
  resolve: (r: FileSaved) => void;
  reject: (e: unknown) => void;
  onBytes?: (n: number) => void;
  /** Bytes already reported through onBytes. */
  reported: number;
  worker: WorkerState;
}

interface WorkerState {
  w: Worker;
  queued: number;
  outbox: { jobId: number; job: FileJob }[];
}

export function nodeThreadPool(opts: NodePoolOptions): PoolFactory {
  return async (settings, hooks, signal) => {
    const threads = Math.max(1, opts.threads ?? os.availableParallelism());
    const init: WorkerInit = {
      key: { encrypt: settings.key.encrypt, macK: settings.key.macK, macR: settings.key.macR },
      polynomial: settings.polynomial,
      version: settings.version,
      compression: settings.compression,
      packSize: settings.packSize,
      backend: opts.backend,
      uploads: opts.uploadsPerWorker ?? 2,
      parallel: opts.parallelPerWorker ?? 2,
    };
    const { url, execArgv } = workerEntry();
    const jobs = new Map<number, Job>();
    const flushes = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
    let nextJob = 0;
    let nextFlush = 0;
    let fatal: unknown;
    let closing = false;

    const start = (): Promise<WorkerState> => {
      const ready = deferred<WorkerState>();
      const w = new Worker(fileURLToPath(url), { workerData: init, execArgv });
      const state: WorkerState = { w, queued: 0, outbox: [] };
      const send = (m: ToWorker) => w.postMessage(m);
      w.on('message', (m: FromWorker) => {
        switch (m.type) {
          case 'ready':
            ready.resolve(state);
            break;
          case 'initError':
            ready.reject(deserializeError(m.error));
            break;
          case 'claim':
            send({ type: 'claimed', reqId: m.reqId, results: m.ids.map((id) => hooks.claim(id)) });
            break;
          case 'bytes':
            for (const [jobId, n] of m.progress) {
              const j = jobs.get(jobId);
              if (!j) continue;
              j.reported += n;
              j.onBytes?.(n);
            }
            break;
          case 'done':
            for (const r of m.results) {
              const j = jobs.get(r.jobId);
              if (!j) continue;
              jobs.delete(r.jobId);
              j.worker.queued--;
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
            const f = flushes.get(m.reqId)!;
            flushes.delete(m.reqId);
            if (m.error) f.reject(deserializeError(m.error));
            else f.resolve();
            break;
          }
        }
      });
      const die = (e: unknown) => {
        fatal ??= e instanceof CairnError ? e : new CairnError('INTERNAL', `file saver thread died: ${(e as Error)?.message ?? e}`, { cause: e });
        ready.reject(fatal);
        for (const j of jobs.values()) if (j.worker === state) j.reject(fatal);
        for (const f of flushes.values()) f.reject(fatal);
      };
      w.on('error', die);
      w.on('exit', (code) => {
        if (code !== 0 && !closing) die(new Error(`exit code ${code}`));
      });
      return ready.promise;
    };

    const workers = await Promise.all(Array.from({ length: threads }, start));
    // Cancelling stops the workers' current files at the next chunk; packs already stored
    // stay stored (the archiver indexes them), open packs are dropped.
    const onAbort = () => {
      for (const s of workers) s.w.postMessage({ type: 'abort' } satisfies ToWorker);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const dispatch = (s: WorkerState) => {
      if (s.outbox.length === 1) {
        queueMicrotask(() => {
          const batch = s.outbox;
          s.outbox = [];
          s.w.postMessage({ type: 'jobs', jobs: batch } satisfies ToWorker);
        });
      }
    };

    const pool: FileSaverPool = {
      concurrency: threads * (opts.queuePerWorker ?? 16),
      save(job, onBytes) {
        if (fatal) return Promise.reject(fatal);
        const worker = workers.reduce((a, b) => (b.queued < a.queued ? b : a));
        worker.queued++;
        const jobId = nextJob++;
        return new Promise<FileSaved>((resolve, reject) => {
          jobs.set(jobId, { resolve, reject, onBytes, reported: 0, worker });
          worker.outbox.push({ jobId, job });
          dispatch(worker);
        });
      },
      async flush() {
        await Promise.all(
          workers.map(
            (s) =>
              new Promise<void>((resolve, reject) => {
                const reqId = nextFlush++;
                flushes.set(reqId, { resolve, reject });
                s.w.postMessage({ type: 'flush', reqId } satisfies ToWorker);
              }),
          ),
        );
        if (fatal) throw fatal;
      },
      async close() {
        if (closing) return;
        closing = true;
        signal?.removeEventListener('abort', onAbort);
        const gone = new CairnError('ABORTED', 'file saver pool closed');
        for (const j of jobs.values()) j.reject(gone);
        for (const f of flushes.values()) f.reject(gone);
        jobs.clear();
        flushes.clear();
        await Promise.all(workers.map((s) => s.w.terminate()));
      },
    };
    return pool;
  };
}
