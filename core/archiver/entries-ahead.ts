// A folder listed by names, its entries read through SourceFS.entriesOf a few batches ahead of
// the walk: while the walk works on one batch's entries (compares them with the parent, hands
// files to savers, encodes nodes), the source lstats the next batches elsewhere.

import type { CairnError } from '../errors';
import type { SourceEntry, SourceFS } from './source';

/** Names per entriesOf call. */
export const AHEAD_BATCH = 256;
/** Batches asked for beyond the one the walk is in. */
export const AHEAD_BATCHES = 3;

type Entries = (SourceEntry | CairnError)[];

export class EntriesAhead {
  readonly #source: SourceFS;
  readonly #dir: SourceEntry;
  readonly #names: readonly unknown[];
  readonly #signal: AbortSignal | undefined;
  readonly #batches = new Map<number, Promise<Entries>>();

  /**
   * `names`: the folder's names in walk order. The walk may forget a name once its entry was
   * taken (get(i) is called with i rising, and a batch is asked for before any of its names is
   * taken).
   */
  constructor(source: SourceFS, dir: SourceEntry, names: readonly unknown[], signal?: AbortSignal) {
    this.#source = source;
    this.#dir = dir;
    this.#names = names;
    this.#signal = signal;
  }

  /** The entry of name `i`, or the SOURCE_READ error in its place. */
  async get(i: number): Promise<SourceEntry | CairnError> {
    const b = Math.floor(i / AHEAD_BATCH);
    for (let k = b; k <= b + AHEAD_BATCHES && k * AHEAD_BATCH < this.#names.length; k++) if (!this.#batches.has(k)) this.#ask(k);
    const entries = await this.#batches.get(b)!;
    if (i === Math.min(this.#names.length, (b + 1) * AHEAD_BATCH) - 1) this.#batches.delete(b);
    return entries[i - b * AHEAD_BATCH]!;
  }

  #ask(k: number): void {
    const names = this.#names.slice(k * AHEAD_BATCH, (k + 1) * AHEAD_BATCH) as string[];
    const p = this.#source.entriesOf!(this.#dir, names, this.#signal);
    p.catch(() => {}); // a batch the walk never reaches (it failed) must not be an unhandled rejection
    this.#batches.set(k, p);
  }
}
