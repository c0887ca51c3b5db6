// Work running now, counted: a background task waits until none runs (the app's session lets
// the page's reads go first this way).

/** Counts the calls of `run` not yet settled; `idle()` resolves once there are none. */
export class Running {
  #count = 0;
  #waiting: (() => void)[] = [];

  get count(): number {
    return this.#count;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.#count++;
    try {
      return await work();
    } finally {
      if (--this.#count === 0) for (const wake of this.#waiting.splice(0)) wake();
    }
  }

  /** Resolves when nothing runs (at once if nothing does). */
  async idle(): Promise<void> {
    while (this.#count > 0) await new Promise<void>((r) => this.#waiting.push(r));
  }
}
