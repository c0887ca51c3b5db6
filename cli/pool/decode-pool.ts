// Restore's pack decoding on worker threads (one per core, started on first use): a pack
// range's buffer is transferred to the least busy thread, decrypted and verified there in
// place, and transferred back, so decryption, MACs, hashes and decompression use every core
// while the main thread writes files.

import { Worker } from 'node:worker_threads';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { deserializeError, throwIfAborted } from '../../core/errors';
import type { PackDecoder } from '../../core/restorer/restorer';
import { PACK_BUFFER_SIZE } from '../../core/pack/packer';
import type { DecodeInit, FromDecoder, ToDecoder } from './decode-messages';

type Done = (m: Extract<FromDecoder, { type: 'decoded' }>) => void;

interface Thread {
  worker: Worker;
  ready: Promise<void>;
  busy: number;
  waiting: Map<number, { done: Done; fail: (e: unknown) => void }>;
}

function workerEntry(): { url: URL; execArgv: string[] | undefined } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL('./decode-worker.ts', here), execArgv: ['--import', 'tsx'] };
  return { url: new URL('./decode-worker.mjs', here), execArgv: undefined };
}

export interface DecodePool {
  decodePack: PackDecoder;
  close(): Promise<void>;
}

/** `entry`: the worker script (default: next to this module; tests pass the bundled one). */
export function nodeDecodePool(opts: { threads?: number; entry?: URL } = {}): DecodePool {
  let threads: Thread[] | undefined;
  let nextId = 0;
  const start = (init: DecodeInit): Thread[] => {
    const { url, execArgv } = opts.entry ? { url: opts.entry, execArgv: undefined } : workerEntry();
    const count = Math.max(1, opts.threads ?? os.availableParallelism());
    return Array.from({ length: count }, () => {
      const worker = new Worker(fileURLToPath(url), { workerData: init, execArgv });
      const waiting: Thread['waiting'] = new Map();
      const failAll = (e: unknown) => {
        for (const w of waiting.values()) w.fail(e);
        waiting.clear();
      };
      const ready = new Promise<void>((resolve, reject) => {
        worker.on('message', (m: FromDecoder) => {
          if (m.type === 'ready') resolve();
          else if (m.type === 'initError') reject(deserializeError(m.error));
          else {
            const w = waiting.get(m.id);
            waiting.delete(m.id);
            w?.done(m);
          }
        });
        worker.on('error', (e) => (reject(e), failAll(e)));
        worker.on('exit', (code) => failAll(new Error(`decode thread exited (${code})`)));
      });
      ready.catch(() => {});
      return { worker, ready, busy: 0, waiting };
    });
  };

  return {
    async decodePack(key, bytes, blobs, signal) {
      throwIfAborted(signal);
      threads ??= start({ key: { encrypt: key.encrypt, macK: key.macK, macR: key.macR } });
      let t = threads[0]!;
      for (const x of threads) if (x.busy < t.busy) t = x;
      await t.ready;
      // Only a buffer that is wholly this range's (or one of restore's own pack buffers) is
      // transferred; anything else (a slice of a shared allocation) is copied first.
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const mine = whole || bytes.buffer.byteLength >= PACK_BUFFER_SIZE;
      const src = mine ? bytes : bytes.slice();
      const id = nextId++;
      t.busy++;
      try {
        const m = await new Promise<Extract<FromDecoder, { type: 'decoded' }>>((done, fail) => {
          t.waiting.set(id, { done, fail });
          const msg: ToDecoder = { id, buffer: src.buffer as ArrayBuffer, offset: src.byteOffset, length: src.byteLength, blobs };
          t.worker.postMessage(msg, [src.buffer as ArrayBuffer]);
        });
        const back = new Uint8Array(m.buffer, src.byteOffset, src.byteLength);
        const results = m.results.map((r) => {
          if ('error' in r) return { error: deserializeError(r.error) };
          if ('extra' in r) return { plain: m.extras[r.extra]! };
          return { plain: new Uint8Array(m.buffer, r.at, r.length) };
        });
        return { bytes: back, results };
      } finally {
        t.busy--;
      }
    },
    async close() {
      if (threads) await Promise.all(threads.map((t) => t.worker.terminate()));
      threads = undefined;
    },
  };
}
