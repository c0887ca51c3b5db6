// Index files written while a backup runs (restic's MasterIndex flushing full indexes): once
// enough new blobs are in stored packs, or enough time has passed, their packs go into an index
// file, so a backup cut short leaves most of what it stored indexed for the next one. Writes
// run one after the other; the first failure is kept (the backup reports it at the end) and
// later writes still go on. Only a stored index file puts its packs into the master index.

import type { ID } from '../id';
import type { SavedPack } from '../index/index-file';
import type { PackJournal } from '../repository/adopt';
import type { BlobRegistry } from './blob-registry';

export interface IndexWriterOptions {
  /** Write an index file after this many new blobs (restic: 50,000) … */
  indexBlobs?: number;
  /** … or after this long (ms). */
  indexIntervalMs?: number;
  /** Told which packs an index file lists once it is stored. */
  journal?: Pick<PackJournal, 'indexed'>;
  signal?: AbortSignal;
  now?: () => number;
}

export interface IndexSaver {
  saveIndex(packs: readonly SavedPack[], signal?: AbortSignal): Promise<ID>;
}

export class IndexWriter {
  readonly #repo: IndexSaver;
  readonly #registry: BlobRegistry;
  readonly #opts: IndexWriterOptions;
  readonly #now: () => number;
  #chain: Promise<unknown> = Promise.resolve();
  #lastAt: number;
  #failure: { e: unknown } | undefined;

  constructor(repo: IndexSaver, registry: BlobRegistry, opts: IndexWriterOptions = {}) {
    this.#repo = repo;
    this.#registry = registry;
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#lastAt = this.#now();
  }

  /** A pack is stored: its blobs are indexed in memory, and an index file is due when enough accumulated. */
  readonly packSaved = (pack: SavedPack, size: number): void => {
    this.#registry.packSaved(pack, size);
    const due = this.#registry.unindexedBlobs >= (this.#opts.indexBlobs ?? 50_000) || this.#now() - this.#lastAt >= (this.#opts.indexIntervalMs ?? 5 * 60_000);
    if (due) void this.write(this.#opts.signal);
  };

  /** Writes the packs not yet in an index file (after the writes already queued); never rejects. */
  write(signal?: AbortSignal): Promise<unknown> {
    const packs = this.#registry.takeUnindexed();
    this.#lastAt = this.#now();
    if (packs.length === 0) return this.#chain;
    this.#chain = this.#chain
      .then(() => this.#repo.saveIndex(packs, signal))
      .then(() => {
        this.#registry.indexed(packs);
        this.#opts.journal?.indexed(packs.map((p) => p.id));
      })
      .catch((e) => void (this.#failure ??= { e }));
    return this.#chain;
  }

  /** Throws the first failed write's error, if any. */
  throwIfFailed(): void {
    if (this.#failure) throw this.#failure.e;
  }
}
