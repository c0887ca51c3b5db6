// One worker thread (stat-worker.ts) that lstats batches of names for the backup's walk
// (SourceFS.entriesOf in cli/adapters/node-source.ts). It is started on first use, keeps the
// process alive only while a batch is out, and is started again if it dies.

import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { LstatBatch } from '../adapters/lstat-records';

export interface ToStatThread {
  id: number;
  dir: string;
  names: string[];
}

export interface FromStatThread {
  id: number;
  batch: LstatBatch;
}

/** The thread's young generation, in MiB: its garbage (each lstat's stats object, paths) dies within a batch. */
const YOUNG_GENERATION_MB = 2;

/**
 * The worker script: stat-worker.mjs next to the bundled CLI; undefined when running from
 * sources (worker threads cannot load .ts; tests hand the bundled one in).
 */
export function bundledStatWorker(): URL | undefined {
  const here = import.meta.url;
  return here.endsWith('.ts') ? undefined : new URL('./stat-worker.mjs', here);
}

interface Waiting {
  resolve(b: LstatBatch): void;
  reject(e: unknown): void;
}

export class StatThread {
  readonly #entry: URL;
  #worker: Worker | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #next = 0;

  constructor(entry: URL) {
    this.#entry = entry;
  }

  /** lstats `dir/name` for each name, on the thread. */
  lstat(dir: string, names: string[]): Promise<LstatBatch> {
    const w = this.#started();
    const id = this.#next++;
    return new Promise<LstatBatch>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      if (this.#waiting.size === 1) w.ref();
      const m: ToStatThread = { id, dir, names };
      w.postMessage(m);
    });
  }

  #started(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(fileURLToPath(this.#entry), { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    w.unref();
    w.on('message', (m: FromStatThread) => {
      const waiting = this.#waiting.get(m.id);
      this.#waiting.delete(m.id);
      if (this.#waiting.size === 0) w.unref();
      waiting?.resolve(m.batch);
    });
    const died = (e: unknown) => {
      if (this.#worker !== w) return;
      this.#worker = undefined;
      const waiting = [...this.#waiting.values()];
      this.#waiting.clear();
      for (const x of waiting) x.reject(e);
    };
    w.on('error', died);
    w.on('exit', (code) => died(new Error(`stat thread exited (${code})`)));
    this.#worker = w;
    return w;
  }
}
