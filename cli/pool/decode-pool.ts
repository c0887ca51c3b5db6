// Restore's pack decoding on Node worker threads, one per core (core/restorer/decode-pool.ts
// does the work of a pool; this starts the threads).

import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { decodePool, type DecodePool, type FromDecoder } from '../../core/restorer/decode-pool';

export type { DecodePool };

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL('./decode-worker.ts', here), execArgv: ['--import', 'tsx'] };
  return { url: new URL('./decode-worker.mjs', here), execArgv: undefined };
}

/**
 * A decode thread's young generation (MiB). V8's default lets it grow to tens of MiB per thread
 * before collecting, on fresh pages each time: D2's check --read-data (50 000 small blobs)
 * peaked at 330 MiB with the default and 260 MiB with 6, 0.2 s sooner (bench/README.md).
 */
const DECODE_YOUNG_GENERATION_MB = 6;

/** `entry`: the worker script (default: next to this module; tests pass the bundled one). */
export function nodeDecodePool(opts: { threads?: number; entry?: URL } = {}): DecodePool {
  return decodePool((init, events) => {
    const { url, execArgv } = opts.entry ? { url: opts.entry, execArgv: undefined } : workerEntry();
    const resourceLimits = { maxYoungGenerationSizeMb: DECODE_YOUNG_GENERATION_MB };
    const worker = new Worker(fileURLToPath(url), { workerData: init, execArgv, resourceLimits });
    worker.on('message', (m: FromDecoder) => events.message(m));
    worker.on('error', (e) => events.failed(e));
    worker.on('exit', (code) => events.failed(new Error(`decode thread exited (${code})`)));
    return { post: (m, transfer) => worker.postMessage(m, transfer), terminate: () => worker.terminate() };
  }, opts.threads ?? os.availableParallelism());
}
