// A counting semaphore: the backend's request cap (core/backend/limit.ts), the restore's file
// writers and the backup's saver pool take their slots from it.

import { CairnError, abortError } from '../errors';

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  /** Rejected by an abort; skipped when its turn comes. */
  gone: boolean;
}

/**
 * A counting semaphore with FIFO hand-off and abortable waits. Thousands of waiters may share
 * one AbortSignal (a backup's files waiting for a slot): the semaphore listens to each signal
 * once, not once per waiter, because EventTarget makes every added listener cost O(listeners).
 */
export class Semaphore {
  readonly capacity: number;
  #free: number;
  #queue: Waiter[] = [];
  #head = 0;
  /** Waiters still queued per signal, and the one listener registered for it. */
  readonly #signals = new Map<AbortSignal, { waiting: number; onAbort: () => void }>();

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
    let n = 0;
    for (let i = this.#head; i < this.#queue.length; i++) if (!this.#queue[i]!.gone) n++;
    return n;
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
      this.#queue.push({ resolve, reject, signal, gone: false });
      if (signal) this.#watch(signal);
    });
  }

  #watch(signal: AbortSignal): void {
    const w = this.#signals.get(signal);
    if (w) {
      w.waiting++;
      return;
    }
    const onAbort = () => {
      this.#signals.delete(signal);
      const e = abortError(signal);
      for (let i = this.#head; i < this.#queue.length; i++) {
        const q = this.#queue[i]!;
        if (q.signal === signal && !q.gone) {
          q.gone = true;
          q.reject(e);
        }
      }
    };
    this.#signals.set(signal, { waiting: 1, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  #unwatch(signal: AbortSignal): void {
    const w = this.#signals.get(signal);
    if (w && --w.waiting === 0) {
      this.#signals.delete(signal);
      signal.removeEventListener('abort', w.onAbort);
    }
  }

  /** Returns a slot; the longest waiter gets it directly. */
  release(): void {
    while (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as unknown as Waiter;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      if (next.gone) continue;
      if (next.signal) this.#unwatch(next.signal);
      next.resolve();
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
