// The file-saver pool, started with the first file that must be read (an unchanged re-backup
// starts no saver threads), with a semaphore that keeps at most `pool.concurrency` files in
// flight. On a cancel, the savers first store what they already hold (uploads in flight and
// the blobs in their open packs; no file is read further) for a bounded time, so the packs can
// be indexed and the next backup need not upload them again.

import { CairnError } from '../errors';
import { Semaphore } from '../concurrency/semaphore';
import type { FileSaverPool, PoolFactory, PoolHooks, SaverSettings } from './pool';

export interface StartedPool {
  pool: FileSaverPool;
  /** One slot per file in flight. */
  files: Semaphore;
}

/** `p`, or a rejection once `ms` have passed. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new CairnError('ABORTED', `gave up after ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export class LazyPool {
  readonly #start: () => Promise<FileSaverPool>;
  #started: Promise<StartedPool> | undefined;

  constructor(makePool: PoolFactory, settings: SaverSettings, hooks: PoolHooks, signal?: AbortSignal) {
    this.#start = () => makePool(settings, hooks, signal);
  }

  get started(): boolean {
    return this.#started !== undefined;
  }

  get(): Promise<StartedPool> {
    return (this.#started ??= this.#start().then((pool) => ({ pool, files: new Semaphore(Math.max(1, pool.concurrency)) })));
  }

  /** Stores the savers' open packs (nothing to do if the pool never started). */
  async flush(): Promise<void> {
    if (this.#started) await (await this.#started).pool.flush();
  }

  /** After a cancel: lets the savers store what they hold, for up to `ms`; never rejects. */
  async flushWithin(ms: number): Promise<void> {
    const started = await this.#started?.catch(() => undefined);
    if (started) await withTimeout(started.pool.flush(), ms).catch(() => {});
  }

  async close(): Promise<void> {
    if (!this.#started) return;
    await this.#started.then(
      (started) => started.pool.close(),
      () => {},
    );
  }
}
