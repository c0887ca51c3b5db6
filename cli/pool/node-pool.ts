// A FileSaverPool of worker threads (one per core by default) over core's saver protocol.

import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { deserializeError } from '../../core/errors';
import type { PoolFactory } from '../../core/archiver/pool';
import { threadPool, type SaverThread } from '../../core/archiver/thread-pool';
import type { BackendSpec } from '../location';
import type { FromWorker, WorkerInit } from './messages';

export interface NodePoolOptions {
  backend: BackendSpec;
  threads?: number;
  /** Files each thread saves at once (overlaps reading with hashing). */
  parallelPerThread?: number;
  /** Files queued per thread (in flight from the archiver's point of view). */
  queuePerThread?: number;
  uploadsPerThread?: number;
  /** backup --dry-run: the threads store nothing. */
  dryRun?: boolean;
  /** The pack journal file the threads note their packs in. */
  journal?: string;
}

/**
 * A saver thread's young generation, in MiB. Its garbage is short-lived (per-file promises,
 * messages, small buffers' wrappers), and V8's default lets the young generation grow to tens
 * of MiB per thread before collecting: 1 000 000 tiny files peaked 711 MiB with the default,
 * 668 MiB with 6 or 3, at the same CPU time (bench/README.md, "The process's memory").
 */
const SAVER_YOUNG_GENERATION_MB = 6;

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  // Bundled CLI: file-saver-worker.mjs sits next to cairn.mjs (dist/cli, dist/cli-test) and inherits node's flags
  // (--cpu-prof profiles the workers too). From sources (tests): use tsx.
  if (here.endsWith('.ts')) return { url: new URL('./file-saver-worker.ts', here), execArgv: ['--import', 'tsx'] };
  return { url: new URL('./file-saver-worker.mjs', here), execArgv: undefined };
}

export function nodeThreadPool(opts: NodePoolOptions): PoolFactory {
  return async (settings, hooks, signal) => {
    const count = Math.max(1, opts.threads ?? os.availableParallelism());
    const init: WorkerInit = {
      key: { encrypt: settings.key.encrypt, macK: settings.key.macK, macR: settings.key.macR },
      polynomial: settings.polynomial,
      version: settings.version,
      compression: settings.compression,
      packSize: settings.packSize,
      backend: opts.backend,
      uploads: opts.uploadsPerThread ?? 2,
      parallel: opts.parallelPerThread ?? 2,
      dryRun: opts.dryRun,
      journal: opts.journal,
    };
    const { url, execArgv } = workerEntry();
    const workers = Array.from(
      { length: count },
      () => new Worker(fileURLToPath(url), { workerData: init, execArgv, resourceLimits: { maxYoungGenerationSizeMb: SAVER_YOUNG_GENERATION_MB } }),
    );
    try {
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve, reject) => {
              w.once('message', (m: FromWorker) =>
                m.type === 'ready' ? resolve() : reject(m.type === 'initError' ? deserializeError(m.error) : new Error('unexpected first message')),
              );
              w.once('error', reject);
            }),
        ),
      );
    } catch (e) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw e;
    }
    const threads: SaverThread[] = workers.map((w) => ({ post: (m) => w.postMessage(m), terminate: () => w.terminate() }));
    const tp = threadPool(threads, hooks, { queuePerThread: opts.queuePerThread, signal });
    workers.forEach((w, i) => {
      w.on('message', (m: FromWorker) => {
        if (m.type !== 'ready' && m.type !== 'initError') tp!.receive(i, m);
      });
      w.on('error', (e) => tp!.died(i, e));
      w.on('exit', (code) => {
        if (code !== 0) tp!.died(i, new Error(`exit code ${code}`));
      });
    });
    return tp.pool;
  };
}
