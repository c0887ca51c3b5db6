// Bounded concurrency: a small FIFO semaphore, and a backend decorator that caps requests in
// flight (restic's internal/backend/sema). Wrap it *inside* withRetry so a request waiting
// out its backoff does not hold a slot: withRetry(withConcurrencyLimit(be, n)).

import { CairnError, abortError, throwIfAborted } from '../errors';
import type { Backend, FileInfo, FileType, Handle, LoadOptions, RequestOptions } from './backend';

type Waiter = () => void;

/** A counting semaphore with FIFO hand-off and abortable waits. */
export class Semaphore {
  readonly capacity: number;
  #free: number;
  readonly #queue: Waiter[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new CairnError('INTERNAL', `semaphore capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#free = capacity;
  }

  /** Slots free right now. */
  get available(): number {
    return this.#free;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Takes a slot if one is free, without waiting. */
  tryAcquire(): boolean {
    if (this.#free === 0) return false;
    this.#free--;
    return true;
  }

  /** Waits for a slot. Rejects with ABORTED (and takes no slot) if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  /** Returns a slot; the longest waiter gets it directly. */
  release(): void {
    const next = this.#queue.shift();
    if (next) {
      next();
      return;
    }
    if (this.#free === this.capacity) throw new CairnError('INTERNAL', 'semaphore released more often than acquired');
    this.#free++;
  }

  /** Runs `fn` holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

/**
 * Caps save/load/stat/remove in flight at `n` (default: the backend's `connections`).
 * Lock files bypass the cap, as in restic, so refreshing a lock never queues behind
 * uploads and goes stale. `list` is not limited: it is one long request, not many.
 */
export function withConcurrencyLimit(inner: Backend, n: number = inner.connections): Backend {
  const sem = new Semaphore(n);
  async function limited<T>(h: Handle, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    if (h.type === 'locks') {
      throwIfAborted(signal);
      return fn();
    }
    return sem.run(async () => {
      throwIfAborted(signal); // the wait may have been long
      return fn();
    }, signal);
  }

  return {
    location: inner.location,
    connections: n,
    close: () => inner.close(),
    save: (h: Handle, data: Uint8Array, o?: RequestOptions) => limited(h, o?.signal, () => inner.save(h, data, o)),
    load: (h: Handle, o?: LoadOptions) => limited(h, o?.signal, () => inner.load(h, o)),
    stat: (h: Handle, o?: RequestOptions) => limited(h, o?.signal, () => inner.stat(h, o)),
    remove: (h: Handle, o?: RequestOptions) => limited(h, o?.signal, () => inner.remove(h, o)),
    list: (type: FileType, o?: RequestOptions): AsyncIterable<FileInfo> => inner.list(type, o),
  };
}
