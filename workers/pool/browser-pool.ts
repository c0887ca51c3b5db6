// A FileSaverPool of Web Workers (the browser twin of cli/pool/node-pool.ts). Each worker
// reads the files it is handed and uploads its own packs; the coordinator answers claims
// synchronously from its BlobRegistry, so every new blob is stored exactly once. Memory per
// worker is about one open pack plus `uploads` packs in flight (16 MiB each) plus the chunks
// being read, so the worker count is capped to keep the whole backup near 300 MB.

import { deserializeError } from '../../core/errors';
import type { PoolFactory } from '../../core/archiver/pool';
import { threadPool, type SaverThread } from '../../core/archiver/thread-pool';
import type { RepoLocation } from '../api';
import type { FromWorker, SaverInit, ToWorker } from './messages';
import { connectFileServer } from '../source/file-server';
import saverWorkerUrl from './file-saver.worker.ts?worker&url';
import { spawnWorker, type SpawnedWorker } from '../spawn';
import type { Sha256Choice } from '../sha256-choice';

export interface BrowserPoolOptions {
  location: RepoLocation;
  /** Default: navigator.hardwareConcurrency, at most maxWorkers. */
  workers?: number;
  maxWorkers?: number;
  /** Files each worker saves at once. */
  jobsPerWorker?: number;
  /** Files queued per worker. */
  queuePerWorker?: number;
  /**
   * Packs each worker uploads at once. Default 1 for folders and OPFS (a write there takes
   * milliseconds), 2 for buckets: a PUT waits on the network, and a second one keeps the
   * connection busy meanwhile (bench/README.md).
   */
  uploadsPerWorker?: number;
  /**
   * Pack buffers per worker. Default 1 for folders and OPFS: storing a pack there takes
   * milliseconds and blocks the worker anyway, so the next pack can wait for the last one's
   * buffer, and the page holds fewer live ArrayBuffers (bench/README.md). 1 for buckets too: the S3 backend copies each pack into the Blob
   * its PUT sends (`prepare`) and the buffer is free again at once, so one pack fills while
   * the last ones go up.
   */
  packBuffersPerWorker?: number;
  sha256?: Sha256Choice;
  aes?: 'auto' | 'webcrypto' | 'wasm';
  /** The page's server of a webkitdirectory list's Files (../source/file-server.ts), if the source is one. */
  fileServer?: MessagePort;
  /** The journal the savers note their packs in before storing them (../engine/pack-journal.ts). */
  journal?: SaverInit['journal'];
  /** Savers started ahead (spawnSavers): taken first, so their start-up is already under way. */
  spares?: SaverSpares;
}

export const DEFAULT_MAX_WORKERS = 6;

const spawnSaver = () => spawnWorker(saverWorkerUrl, 'cairn-file-saver');

export function saverWorkerCount(opts: Pick<BrowserPoolOptions, 'workers' | 'maxWorkers'> = {}): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 2 : 2;
  return Math.max(1, opts.workers ?? Math.min(cores, opts.maxWorkers ?? DEFAULT_MAX_WORKERS));
}

/** Savers started before a backup needs them; see spawnSavers. */
export interface SaverSpares {
  /** A started saver, or a new one when none is left (or those left failed to start). */
  take(): SpawnedWorker;
  /** Ends the savers nobody took (a backup that failed first, or found every file unchanged). */
  dispose(): void;
}

/**
 * Starts `count` savers now, for a backup about to begin. A saver takes a noticeable fraction
 * of a second from spawn to its first line when the page is busy reading the picked Files'
 * sizes (the page, which starts them, answers only between its metadata slices): started
 * first, they load while the backup takes its lock and walks.
 */
export function spawnSavers(count: number): SaverSpares {
  const spares = Array.from({ length: count }, () => {
    const spare = { worker: spawnSaver(), failed: false };
    // Until a pool takes it (and its own handlers replace this one).
    spare.worker.onerror = (ev) => {
      ev.preventDefault();
      spare.failed = true;
    };
    return spare;
  });
  return {
    take() {
      for (let s = spares.shift(); s; s = spares.shift()) {
        if (!s.failed) return s.worker;
        s.worker.terminate();
      }
      return spawnSaver();
    },
    dispose() {
      for (const s of spares.splice(0)) s.worker.terminate();
    },
  };
}

let standing: { count: number; spares: SaverSpares } | undefined;

/**
 * Keeps `count` savers started and idle for the next backup, so it starts with them loaded
 * (the engine calls this once a repository is open and after each backup). They hold no key:
 * a saver gets the repository's settings only when a backup takes it. Savers already standing
 * by stay if they are as many; otherwise they end and `count` new ones start.
 */
export function standBySavers(count: number): void {
  if (standing?.count === count) return;
  standing?.spares.dispose();
  standing = { count, spares: spawnSavers(count) };
}

/** The savers standBySavers started, taken for a backup; or `count` started now. */
export function takeSavers(count: number): SaverSpares {
  const s = standing?.spares ?? spawnSavers(count);
  standing = undefined;
  return s;
}

/** Ends the standing savers (the repository closed). */
export function dropStandingSavers(): void {
  standing?.spares.dispose();
  standing = undefined;
}

export function browserPool(opts: BrowserPoolOptions): PoolFactory {
  return async (settings, hooks, signal) => {
    const count = saverWorkerCount(opts);
    const uploads = opts.uploadsPerWorker ?? (opts.location.kind === 's3' ? 2 : 1);
    const init: SaverInit = {
      key: { encrypt: settings.key.encrypt, macK: settings.key.macK, macR: settings.key.macR },
      polynomial: settings.polynomial,
      version: settings.version,
      compression: settings.compression,
      packSize: settings.packSize,
      location: opts.location,
      uploads,
      packBuffers: opts.packBuffersPerWorker ?? 1,
      parallel: opts.jobsPerWorker ?? 2,
      sha256: opts.sha256,
      aes: opts.aes,
      journal: opts.journal,
    };
    const workers = Array.from({ length: count }, () => opts.spares?.take() ?? spawnSaver());
    let tp: ReturnType<typeof threadPool> | undefined;
    const started = await Promise.allSettled(
      workers.map(
        (w, i) =>
          new Promise<void>((resolve, reject) => {
            w.onmessage = (ev: MessageEvent<FromWorker>) => {
              const m = ev.data;
              if (m.type === 'ready') resolve();
              else if (m.type === 'initError') reject(deserializeError(m.error));
              else tp?.receive(i, m);
            };
            w.onerror = (ev) => {
              ev.preventDefault();
              const e = new Error(ev.message || 'script error');
              if (tp) tp.died(i, e);
              else reject(e);
            };
            w.onmessageerror = () => tp?.died(i, new Error('a message could not be cloned'));
            // Each saver asks the page for the listed Files it reads over a port of its own.
            const files = opts.fileServer && connectFileServer(opts.fileServer);
            w.postMessage({ type: 'init', init: { ...init, files } } satisfies ToWorker, files ? [files] : []);
          }),
      ),
    );
    const failed = started.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) {
      for (const w of workers) w.terminate();
      throw failed.reason;
    }
    const threads: SaverThread[] = workers.map((w) => ({ post: (m) => w.postMessage(m), terminate: () => w.terminate() }));
    tp = threadPool(threads, hooks, { queuePerThread: opts.queuePerWorker, signal });
    return tp.pool;
  };
}
