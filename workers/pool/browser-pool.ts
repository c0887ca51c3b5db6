// A FileSaverPool of Web Workers (the browser twin of cli/pool/node-pool.ts). Each worker
// reads the files it is handed and uploads its own packs; the coordinator answers claims
// synchronously from its BlobRegistry, so every new blob is stored exactly once. Memory per
// worker is about one open pack plus `uploads` packs in flight (16 MiB each) plus the chunks
// being read, so the worker count is capped to keep the whole backup near 300 MB.

import { CairnError, deserializeError } from '../../core/errors';
import type { FileSaved } from '../../core/archiver/file-saver';
import type { FileSaverPool, PoolFactory } from '../../core/archiver/pool';
import { deferred } from '../../core/util/concurrency';
import type { RepoLocation } from '../api';
import type { FromSaver, SaverInit, ToSaver } from './messages';

export interface BrowserPoolOptions {
  location: RepoLocation;
  /** Default: navigator.hardwareConcurrency, at most maxWorkers. */
  workers?: number;
  maxWorkers?: number;
  jobsPerWorker?: number;
  uploadsPerWorker?: number;
  sha256?: 'auto' | 'webcrypto' | 'wasm';
}

export const DEFAULT_MAX_WORKERS = 6;

export function saverWorkerCount(opts: Pick<BrowserPoolOptions, 'workers' | 'maxWorkers'> = {}): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 2 : 2;
  return Math.max(1, opts.workers ?? Math.min(cores, opts.maxWorkers ?? DEFAULT_MAX_WORKERS));
}

interface Job {
  resolve: (r: FileSaved) => void;
  reject: (e: unknown) => void;
  onBytes?: (n: number) => void;
  worker: SaverState;
}

interface SaverState {
  w: Worker;
  busy: number;
}

export function browserPool(opts: BrowserPoolOptions): PoolFactory {
  return async (settings, hooks, signal) => {
    const count = saverWorkerCount(opts);
    const perWorker = opts.jobsPerWorker ?? 2;
    const init: SaverInit = {
      key: { encrypt: settings.key.encrypt, macK: settings.key.macK, macR: settings.key.macR },
      polynomial: settings.polynomial,
      version: settings.version,
      compression: settings.compression,
      packSize: settings.packSize,
      location: opts.location,
      uploads: opts.uploadsPerWorker ?? 1,
      sha256: opts.sha256,
    };
    const jobs = new Map<number, Job>();
    const flushes = new Map<number, { resolve: () => void; reject: (e: unknown) => void; worker: SaverState }>();
    let nextJob = 0;
    let nextFlush = 0;
    let fatal: unknown;
    let closing = false;

    const start = (): Promise<SaverState> => {
      const ready = deferred<SaverState>();
      const w = new Worker(new URL('./file-saver.worker.ts', import.meta.url), { type: 'module', name: 'cairn-file-saver' });
      const state: SaverState = { w, busy: 0 };
      const send = (m: ToSaver) => w.postMessage(m);
      w.onmessage = (ev: MessageEvent<FromSaver>) => {
        const m = ev.data;
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
            jobs.get(m.jobId)?.onBytes?.(m.n);
            break;
          case 'done':
          case 'failed': {
            const j = jobs.get(m.jobId);
            if (!j) break;
            jobs.delete(m.jobId);
            j.worker.busy--;
            if (m.type === 'done') j.resolve(m.result);
            else j.reject(deserializeError(m.error));
            break;
          }
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
      const die = (why: string) => {
        if (closing) return;
        fatal ??= new CairnError('INTERNAL', `file saver worker failed: ${why}`);
        ready.reject(fatal);
        for (const [id, j] of jobs) if (j.worker === state) (jobs.delete(id), j.reject(fatal));
        for (const [id, f] of flushes) if (f.worker === state) (flushes.delete(id), f.reject(fatal));
      };
      w.onerror = (ev) => {
        ev.preventDefault();
        die(ev.message || 'script error');
      };
      w.onmessageerror = () => die('a message could not be cloned');
      send({ type: 'init', init });
      return ready.promise;
    };

    const started = await Promise.allSettled(Array.from({ length: count }, start));
    const workers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const firstError = started.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (firstError) {
      for (const s of workers) s.w.terminate();
      throw firstError.reason;
    }

    const pool: FileSaverPool = {
      concurrency: workers.length * perWorker,
      save(job, onBytes) {
        if (fatal) return Promise.reject(fatal);
        const worker = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
        worker.busy++;
        const jobId = nextJob++;
        return new Promise<FileSaved>((resolve, reject) => {
          jobs.set(jobId, { resolve, reject, onBytes, worker });
          worker.w.postMessage({ type: 'job', jobId, job } satisfies ToSaver);
        });
      },
      async flush() {
        await Promise.all(
          workers.map(
            (s) =>
              new Promise<void>((resolve, reject) => {
                const reqId = nextFlush++;
                flushes.set(reqId, { resolve, reject, worker: s });
                s.w.postMessage({ type: 'flush', reqId } satisfies ToSaver);
              }),
          ),
        );
        if (fatal) throw fatal;
      },
      async close() {
        if (closing) return;
        closing = true;
        signal?.removeEventListener('abort', onAbort);
        for (const s of workers) s.w.terminate();
        const gone = new CairnError('ABORTED', 'operation cancelled');
        for (const j of jobs.values()) j.reject(gone);
        for (const f of flushes.values()) f.reject(gone);
        jobs.clear();
        flushes.clear();
      },
    };
    // Cancel: the archiver stops handing out jobs; jobs in flight are cut off here.
    const onAbort = () => {
      fatal ??= new CairnError('ABORTED', 'operation cancelled');
      for (const j of jobs.values()) j.reject(fatal);
      jobs.clear();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    return pool;
  };
}
