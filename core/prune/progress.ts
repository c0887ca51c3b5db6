// Progress of a prune, for a terminal or the app: the phase, how far it is (in the phase's
// unit: index files, snapshots, packs), and running totals of packs read, repacked, deleted
// and bytes freed. Throttled: at most one report per interval, plus one at every phase change.

export type PrunePhase =
  'load-index' | 'load-snapshots' | 'find-used' | 'classify' | 'delete-unreferenced' | 'repack' | 'rewrite-index' | 'delete-index' | 'delete-packs' | 'done';

export interface PruneProgress {
  phase: PrunePhase;
  /**
   * Items done and known in this phase: index files loaded, snapshots loaded, snapshots
   * walked, pack files listed (classify), packs deleted, packs repacked, old index files (the
   * total while rewriting; deleted ones then), packs deleted.
   */
  done: number;
  total: number;
  /** Packs downloaded for repacking. */
  packsRead: number;
  /** Packs whose used blobs are in new packs now. */
  packsRepacked: number;
  /** New packs written by repacking, and their bytes. */
  packsWritten: number;
  bytesWritten: number;
  /** Pack files deleted, and their bytes (bytes freed = bytesDeleted − bytesWritten). */
  packsDeleted: number;
  bytesDeleted: number;
}

export type PruneProgressListener = (p: PruneProgress) => void;

export class PruneReporter {
  readonly state: PruneProgress = {
    phase: 'load-index',
    done: 0,
    total: 0,
    packsRead: 0,
    packsRepacked: 0,
    packsWritten: 0,
    bytesWritten: 0,
    packsDeleted: 0,
    bytesDeleted: 0,
  };
  readonly #listener: PruneProgressListener | undefined;
  readonly #intervalMs: number;
  #last = 0;

  constructor(listener?: PruneProgressListener, intervalMs = 200) {
    this.#listener = listener;
    this.#intervalMs = intervalMs;
  }

  /** Starts a phase of `total` items (reported at once). */
  phase(phase: PrunePhase, total = 0): void {
    Object.assign(this.state, { phase, done: 0, total });
    this.emit(true);
  }

  /** Updates counters, then reports if the interval has passed. */
  update(change: Partial<PruneProgress>): void {
    Object.assign(this.state, change);
    this.emit();
  }

  /** Adds to a counter, then reports if the interval has passed. */
  add(key: Exclude<keyof PruneProgress, 'phase'>, n = 1): void {
    this.state[key] += n;
    this.emit();
  }

  emit(force = false): void {
    if (!this.#listener) return;
    const now = Date.now();
    if (!force && now - this.#last < this.#intervalMs) return;
    this.#last = now;
    this.#listener({ ...this.state });
  }
}
