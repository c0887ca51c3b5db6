// The open repository and everything the engine keeps decrypted about it — in this worker's
// memory only: the master key (inside Repository), decoded snapshots, and recently used
// trees. Closing the session (or the page) drops all of it.

import type { Backend } from '../../core/backend/backend';
import { decodeTree, type Tree } from '../../core/data';
import type { ID } from '../../core/id';
import type { Repository } from '../../core/repository/repository';
import { loadSnapshot, type SnapshotEntry } from '../../core/repository/snapshots';
import { mapLimit } from '../../core/concurrency/concurrency';
import { Running } from '../../core/concurrency/running';
import { CairnError } from '../../core/errors';
import type { OfflineCacheProgress, RepoInfo, RepoLocation } from '../api';
import type { CachedBackend } from '../cache/cached-backend';
import { offlineRecords } from '../cache/offline-records';
import { loadOutlines, OutlineWriter, type Outline, type OutlineStore } from './name-index';
import { fillOfflineCache, type FillHost } from './offline-fill';
import { EngineFault } from '../errors';
import { browserOffline, describeLocation, isRemote } from '../location';
import type { DeviceInfo } from '../../core/presign/handler';
import type { Access } from '../../core/presign/access';
import { requireDevice } from './device';
import type { SnapshotPrefetch } from './snapshot-prefetch';

const TREE_CACHE_ENTRIES = 4000;

export class Session {
  readonly loc: RepoLocation;
  readonly locationKey: string;
  readonly repo: Repository;
  readonly cached: CachedBackend | undefined;
  readonly forcedOffline: boolean;
  /** This device at its presign endpoint (./device.ts); undefined with keys or no endpoint. */
  readonly device: DeviceInfo | undefined;
  remembered: boolean;
  #snapshots: Map<ID, SnapshotEntry> | undefined;
  /** The listing the open answered with, until the page has been given a list (see openInfo). */
  #openListing: Promise<SnapshotEntry[]> | undefined;
  readonly #trees = new Map<ID, Tree>();
  /** Search's outlines (./name-index.ts) of the offline cache, if it keeps them. */
  readonly #outlineStore: OutlineStore | undefined;
  #outlines: Promise<Map<ID, Outline>> | undefined;
  readonly #closed = new AbortController();
  #warming: Promise<OfflineCacheProgress> | undefined;
  /** The fill's last progress, and who listens to it (./offline-fill.ts). */
  #fill: OfflineCacheProgress | undefined;
  readonly #fillListeners = new Set<(p: OfflineCacheProgress) => unknown>();
  /** The page's tree loads running now; the background fill waits while there are any. */
  readonly #foreground = new Running();
  /**
   * Reads of the offline cache alone running now, which need no index (a folder's tree, search's
   * outlines, a search): a background index load steps aside meanwhile (Repository.indexPace).
   */
  readonly #cacheReads = new Running();
  #listed!: () => void;
  #prefetched: SnapshotPrefetch | undefined;
  /** Resolved once the page has been given the snapshot list (see listed()). */
  readonly firstList = new Promise<void>((r) => (this.#listed = r));

  constructor(init: {
    loc: RepoLocation;
    locationKey: string;
    repo: Repository;
    cached?: CachedBackend;
    offline: boolean;
    remembered: boolean;
    device?: DeviceInfo;
    outlines?: OutlineStore;
    /** The snapshot files the open fetched meanwhile: the first listing takes them. */
    prefetched?: SnapshotPrefetch;
  }) {
    this.loc = init.loc;
    this.locationKey = init.locationKey;
    this.repo = init.repo;
    this.repo.indexPace = () => this.#cacheReads.idle();
    this.cached = init.cached;
    this.forcedOffline = init.offline;
    this.remembered = init.remembered;
    this.device = init.device;
    this.#outlineStore = init.outlines;
    this.#prefetched = init.prefetched;
  }

  get backend(): Backend {
    return this.repo.backend;
  }

  /** Is the engine working from the offline cache right now? */
  get offline(): boolean {
    return isRemote(this.loc) && (this.forcedOffline || browserOffline());
  }

  /** Rejects with NOT_PERMITTED, before anything is changed, what this device's role does not allow. */
  requireAccess(access: Access, operation: string): void {
    requireDevice(this.device, access, operation);
  }

  requireOnline(what: string): void {
    if (this.offline) throw new EngineFault('NEEDS_NETWORK', `${what} needs the network: this repository is in a bucket and the browser is offline`);
  }

  async info(listing?: SnapshotEntry[]): Promise<RepoInfo> {
    return {
      id: this.repo.config.id,
      version: this.repo.version,
      location: describeLocation(this.loc),
      locationKey: this.locationKey,
      snapshots: (listing ?? (await this.snapshots())).length,
      offline: this.offline,
      remembered: this.remembered,
      ...(this.device ? { device: { ...this.device } } : {}),
    };
  }

  /**
   * The open's answer. The listing it counts is kept for the page's first list (pageSnapshots),
   * which follows at once: a warm open lists the bucket once, not twice.
   */
  async openInfo(): Promise<RepoInfo> {
    const listing = this.snapshots();
    this.#openListing = listing;
    listing.catch(() => {
      if (this.#openListing === listing) this.#openListing = undefined;
    });
    return this.info(await listing);
  }

  /**
   * The snapshots for the page: the open's listing while the page has done nothing since the
   * open but ask for it; a fresh listing once it has had a list, browsed a tree, or the
   * snapshots changed.
   */
  pageSnapshots(): Promise<SnapshotEntry[]> {
    return this.#openListing ?? this.snapshots();
  }

  /** Every snapshot, oldest first; decoded once per session, refreshed from the listing. */
  async snapshots(signal?: AbortSignal): Promise<SnapshotEntry[]> {
    const known = this.#snapshots ?? new Map<ID, SnapshotEntry>();
    const early = this.#prefetched;
    this.#prefetched = undefined;
    const ids = await (early?.ids ?? this.repo.listIDs('snapshots', signal));
    const fresh = new Map<ID, SnapshotEntry>();
    const missing = ids.filter((id) => !known.has(id));
    for (const id of ids) if (known.has(id)) fresh.set(id, known.get(id)!);
    // Each snapshot file is read (from the cache when it has it) and decrypted once per session;
    // an unreadable one is left out rather than hiding the others.
    await mapLimit(missing, 8, async (id) => {
      try {
        fresh.set(id, { id, snapshot: await loadSnapshot(this.repo, id, signal, early?.file(id)) });
      } catch (e) {
        if (e instanceof CairnError && e.code === 'ABORTED') throw e;
        if (e instanceof EngineFault) throw e;
      }
    });
    this.#snapshots = fresh;
    return [...fresh.values()].sort((a, b) => a.snapshot.time.compare(b.snapshot.time) || (a.id < b.id ? -1 : 1));
  }

  /** A snapshot by full ID or unique prefix. */
  async snapshot(ref: string): Promise<SnapshotEntry> {
    const hit = this.#snapshots?.get(ref);
    if (hit) return hit;
    const all = (await this.snapshots()).filter((e) => e.id.startsWith(ref));
    if (all.length === 1) return all[0]!;
    if (all.length > 1) throw new CairnError('AMBIGUOUS_ID', `ID ${ref} matches ${all.length} snapshots`);
    throw new CairnError('SNAPSHOT_NOT_FOUND', `no snapshot ${ref}`);
  }

  /** The page has the snapshot list: background work may start (engine-main waits for this). */
  listed(): void {
    this.#openListing = undefined;
    this.#listed();
  }

  /** The snapshots changed (a backup, a forget): the next list is taken afresh. */
  forgetSnapshots(): void {
    this.#snapshots = undefined;
    this.#openListing = undefined;
  }

  /** A decoded tree for the page (browsing, search, diff): the background fill waits meanwhile. */
  async tree(id: ID, signal?: AbortSignal): Promise<Tree> {
    this.#openListing = undefined; // a page that browses first lists afresh when it lists
    return this.#foreground.run(() => this.#tree(id, signal));
  }

  /**
   * Resolves when no tree load of the page runs, checked again one task later: a listing's
   * loads follow each other with only microtasks between them, and the fill should not slip in.
   */
  async #whenForegroundIdle(): Promise<void> {
    for (;;) {
      await this.#foreground.idle();
      await new Promise((r) => setTimeout(r, 0));
      if (this.#foreground.count === 0) return;
    }
  }

  /** A decoded tree, from memory, then the cache/backend (Repository.loadBlob verifies it). */
  async #tree(id: ID, signal?: AbortSignal): Promise<Tree> {
    const hit = this.#trees.get(id);
    if (hit) {
      this.#trees.delete(id); // LRU: move to the back
      this.#trees.set(id, hit);
      return hit;
    }
    // A tree the offline cache holds is read without waiting for the index (it can take
    // seconds at 100 snapshots); the rest waits for it, to locate the blob.
    let bytes = this.repo.indexLoaded ? undefined : await this.#cacheReads.run(() => this.repo.cachedBlob('tree', id));
    if (!bytes) {
      await this.repo.loadIndex({ signal });
      bytes = await this.repo.loadBlob('tree', id, signal);
    }
    let tree: Tree;
    try {
      tree = decodeTree(bytes);
    } catch (e) {
      throw new CairnError('BAD_TREE', `tree ${id.slice(0, 8)}: ${(e as Error).message}`, { cause: e, detail: { tree: id } });
    }
    this.#trees.set(id, tree);
    if (this.#trees.size > TREE_CACHE_ENTRIES) this.#trees.delete(this.#trees.keys().next().value!);
    return tree;
  }

  /**
   * After the list, in the background: search's outlines first, if the offline cache keeps any
   * (search and the snapshot sizes use them, and they need no index: ~1 s at 100 snapshots of
   * 200 000 files), then the index, paced (downloads, backups and folders the cache lacks need it).
   */
  async warmUpIndex(): Promise<void> {
    await this.outlines();
    await this.repo.loadIndex({ background: true });
  }

  /** Runs `work`, which reads the offline cache and mostly needs no index (a search): a background index load waits meanwhile. */
  fromCache<T>(work: () => Promise<T>): Promise<T> {
    return this.#cacheReads.run(work);
  }

  /** Every folder outline the offline cache keeps for search, by tree ID (empty without one). */
  outlines(): Promise<Map<ID, Outline>> {
    const store = this.#outlineStore;
    if (!store) return Promise.resolve(new Map());
    return (this.#outlines ??= this.#cacheReads.run(() => loadOutlines(this.repo.key, store)).catch(() => new Map()));
  }

  /** The fill's side of the outlines: each committed snapshot's outlines are loaded with the next search. */
  outlineWriter(): FillHost['outlines'] {
    const store = this.#outlineStore;
    if (!store) return undefined;
    const writer = new OutlineWriter(this.repo.key, store);
    return {
      add: (id, tree) => writer.add(id, tree),
      commit: async (snapshot) => {
        await writer.commit(snapshot);
        this.#outlines = undefined;
      },
      stored: async () => new Set(await store.names('outlines')),
    };
  }

  /**
   * Fills the offline cache (./offline-fill.ts): every snapshot's trees (and, on the way, the
   * index files) are fetched once so that browsing, search and diff work without the network.
   * The page starts it once the snapshot list is shown; the engine again after each backup.
   * `onProgress` hears the current state at once, then every step (awaited: it sets the pace).
   * Resolves with the fill's last progress ('done').
   */
  warmOfflineCache(onProgress?: (p: OfflineCacheProgress) => unknown): Promise<OfflineCacheProgress> {
    if (!this.cached || this.offline) {
      const none: OfflineCacheProgress = { phase: 'done', indexFiles: 0, indexTotal: 0, snapshots: 0, snapshotsDone: 0, folders: 0 };
      void onProgress?.({ ...none });
      return Promise.resolve(none);
    }
    if (onProgress) this.#fillListeners.add(onProgress);
    const running = this.#warming;
    this.#warming ??= this.#warm().finally(() => {
      this.#warming = undefined;
      this.#fillListeners.clear();
    });
    if (running && onProgress && this.#fill) void Promise.resolve(onProgress({ ...this.#fill })).catch(() => {});
    return this.#warming;
  }

  async #warm(): Promise<OfflineCacheProgress> {
    const signal = this.#closed.signal;
    const report = async (p: OfflineCacheProgress) => {
      this.#fill = p;
      await Promise.all([...this.#fillListeners].map((l) => Promise.resolve(l({ ...p })).catch(() => this.#fillListeners.delete(l))));
    };
    const host = {
      repo: this.repo,
      snapshots: (sig?: AbortSignal) => this.snapshots(sig),
      backgroundTree: (id: ID, sig?: AbortSignal) => this.#tree(id, sig),
      foregroundIdle: () => this.#whenForegroundIdle(),
      settled: async () => this.cached?.settled(),
      refused: () => this.cached?.stats.refused,
      outlines: this.outlineWriter(),
    };
    try {
      const done = await fillOfflineCache(host, offlineRecords, report, signal);
      await report(done);
      return done;
    } finally {
      this.#fill = undefined;
    }
  }

  async close(): Promise<void> {
    this.#closed.abort();
    this.#trees.clear();
    this.#snapshots = undefined;
    await this.backend.close().catch(() => {});
  }
}
