// When the walk may list the next directory. A directory is listed only while fewer than
// `queue` listed files wait for a saver, at most `parallel` at once, the newest waiting
// directory first. So the walk goes depth-first, and the files waiting stay near `queue` plus
// what the listings under way add, instead of every file of a 50k-file folder at once (restic:
// one sequential walker feeding bounded savers). A directory waiting for its children holds no
// turn, and files drain without one, so the walk cannot deadlock. Once the walk failed or was
// cancelled, every waiting turn is given at once and throws, and so does every later one.

import { throwIfAborted } from '../errors';

export interface ListingLimits {
  /** Directory listings at once. */
  parallel: number;
  /** Listed files waiting for a saver (beyond the pool's own concurrency) before listing pauses. */
  queue: number;
}

export class ListingScheduler {
  readonly #limits: ListingLimits;
  readonly #signal: AbortSignal | undefined;
  readonly #waiting: (() => void)[] = [];
  #listing = 0;
  #filesWaiting = 0;
  #failure: { e: unknown } | undefined;

  constructor(limits: ListingLimits, signal?: AbortSignal) {
    this.#limits = limits;
    this.#signal = signal;
    signal?.addEventListener('abort', this.#wake, { once: true });
  }

  /** Files listed and not yet handed to a saver (or done). */
  get filesWaiting(): number {
    return this.#filesWaiting;
  }

  /** The first failure of the walk, once there is one. */
  get failure(): { e: unknown } | undefined {
    return this.#failure;
  }

  /** Runs `fn` (a listing) in its turn; call filesListed() inside it, before the turn ends. */
  async turn<T>(fn: () => Promise<T>): Promise<T> {
    // After a failure or cancellation nothing wakes a new waiter: files listed then never start.
    this.#throwIfStopped();
    if (this.#waiting.length === 0 && this.#mayList()) this.#listing++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve)); // #wake counts us in
    try {
      this.#throwIfStopped();
      return await fn();
    } finally {
      this.#listing--;
      this.#wake();
    }
  }

  filesListed(n: number): void {
    this.#filesWaiting += n;
  }

  /** A listed file no longer waits (a saver took it, or it needed none). */
  fileStarted(): void {
    this.#filesWaiting--;
    this.#wake();
  }

  /** The walk failed: the first failure is kept and the waiting turns are let go. */
  fail(e: unknown): void {
    if (this.#failure) return;
    this.#failure = { e };
    this.#wake();
  }

  dispose(): void {
    this.#signal?.removeEventListener('abort', this.#wake);
  }

  #throwIfStopped(): void {
    if (this.#failure) throw this.#failure.e;
    throwIfAborted(this.#signal);
  }

  #mayList(): boolean {
    return this.#listing < this.#limits.parallel && this.#filesWaiting < this.#limits.queue;
  }

  readonly #wake = (): void => {
    while (this.#waiting.length > 0 && (this.#mayList() || this.#failure || this.#signal?.aborted)) {
      this.#listing++;
      this.#waiting.pop()!();
    }
  };
}
