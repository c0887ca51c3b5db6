// A value fetched from the engine: loading flag, the error as described text, and protection
// against out-of-order answers (only the newest request's answer is kept) — the pattern every
// browse view shares.

import { describeError, type Described } from '../lib/messages';

export class Loadable<T> {
  #value = $state.raw<T | undefined>();
  #loading = $state(false);
  #error = $state.raw<Described | undefined>();
  #seq = 0;

  get value(): T | undefined {
    return this.#value;
  }
  get loading(): boolean {
    return this.#loading;
  }
  get error(): Described | undefined {
    return this.#error;
  }

  /** Runs `fetch`; returns true when its answer became the value. */
  async load(fetch: () => Promise<T>, opts: { keep?: boolean } = {}): Promise<boolean> {
    const seq = ++this.#seq;
    this.#loading = true;
    this.#error = undefined;
    if (!opts.keep) this.#value = undefined;
    try {
      const v = await fetch();
      if (seq !== this.#seq) return false;
      this.#value = v;
      return true;
    } catch (e) {
      if (seq === this.#seq) this.#error = describeError(e);
      return false;
    } finally {
      if (seq === this.#seq) this.#loading = false;
    }
  }

  /** Shows `v` as the value without fetching (a kept copy that a `load` with keep replaces). */
  set(v: T): void {
    this.#seq++;
    this.#value = v;
    this.#error = undefined;
    this.#loading = false;
  }

  /** Drops the value but keeps an error on show. */
  dropValue(): void {
    this.#value = undefined;
  }

  clear(): void {
    this.#seq++;
    this.#value = undefined;
    this.#error = undefined;
    this.#loading = false;
  }
}
