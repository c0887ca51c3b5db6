// The offline metadata cache as a Backend decorator (restic's cache is one too,
// internal/cache): config, key files, snapshots and index files are kept in IndexedDB exactly
// as fetched, and listings of those types are remembered. Content-addressed objects never
// change, so they are served from the cache first (a warm open costs no downloads); listings
// and the config go to the backend while it answers and fall back to the cache when the
// network is gone. Data packs are never cached: offline, loading one fails with NEEDS_NETWORK.
//
// Before the repository's ID is known (during open) fetched objects are held in memory;
// adoptRepository() files them under the ID once the config has been decrypted.

import { CairnError, throwIfAborted } from '../../core/errors';
import {
  bytesOf,
  preparing,
  type Backend,
  type FileInfo,
  type FileType,
  type Handle,
  type LoadOptions,
  type PreparedBody,
  type RequestOptions,
  type SaveData,
} from '../../core/backend/backend';
import { EngineFault } from '../errors';
import { isNetworkFailure } from '../location';
import { indexedDbStore, type CachedType, type MetadataStore } from './metadata-store';

const CACHED: ReadonlySet<FileType> = new Set<FileType>(['config', 'keys', 'snapshots', 'index']);

export interface CachedBackendOptions {
  locationKey: string;
  /**
   * How long a listing may take before the cached one is used instead (when there is one):
   * an unreachable endpoint would otherwise sit in the retry loop for minutes. Default 10 s.
   */
  listTimeoutMs?: number;
  /** The repository last seen at this location (from the cache), if any. */
  knownRepoId?: string;
  /** True while the engine must not touch the network. */
  offline: () => boolean;
  /** Where cached objects and listings are kept (the app's IndexedDB unless given). */
  store?: MetadataStore;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** The first write the browser refused for lack of room (a QuotaExceededError), if any. */
  refused?: unknown;
}

/** Notes `e` in `stats` when it is the browser refusing room (the cache itself never fails an operation). */
export function noteRefusal(stats: CacheStats, e: unknown): void {
  if ((e as { name?: unknown } | null)?.name === 'QuotaExceededError') stats.refused ??= e;
}

export class CachedBackend implements Backend {
  readonly #inner: Backend;
  readonly #opts: CachedBackendOptions;
  readonly #store: MetadataStore;
  #repoId: string | undefined;
  readonly #pending = new Map<string, { h: Handle; bytes: Uint8Array }>();
  readonly #pendingLists = new Map<FileType, FileInfo[]>();
  readonly #writes = new Set<Promise<unknown>>();
  /**
   * The cache held nothing of the adopted repository when it was opened: what this backend has
   * not stored since (`#stored`) is not looked up (a cold open's 100 snapshot files would each
   * wait for an IndexedDB read queued behind the writes of the ones before).
   */
  #fresh = false;
  readonly #stored = new Set<string>();
  readonly stats: CacheStats = { hits: 0, misses: 0 };

  /** The inner backend's, where it has one (packs, which are not cached, are what gets prepared). */
  readonly prepare?: (data: Uint8Array) => Promise<PreparedBody>;

  constructor(inner: Backend, opts: CachedBackendOptions) {
    this.#inner = inner;
    this.#opts = opts;
    this.#store = opts.store ?? indexedDbStore;
    this.#repoId = opts.knownRepoId;
    this.prepare = preparing(inner).prepare;
  }

  get location(): string {
    return this.#inner.location;
  }

  /** The storage itself, for what must not be answered from the cache (a check). */
  get inner(): Backend {
    return this.#inner;
  }

  get connections(): number {
    return this.#inner.connections;
  }

  get repoId(): string | undefined {
    return this.#repoId;
  }

  /**
   * Files what was fetched during open under the repository's ID, and links the location to it.
   * A repository new to this cache is filed before this returns, so it can be unlocked offline
   * at once; one the cache already holds (its listings are there from an earlier open) is
   * refreshed in the background, so a warm open does not wait for two listings and the writes.
   * `keyId` is the key file that opened it, tried first the next time.
   */
  async adoptRepository(repoId: string, keyId?: string): Promise<void> {
    const known = this.#opts.knownRepoId === repoId;
    if (this.#repoId && this.#repoId !== repoId) this.#pending.clear(); // another repository now lives here
    this.#repoId = repoId;
    this.#fresh = !known;
    this.#track(this.#store.putLocation(this.#opts.locationKey, repoId, keyId));
    for (const { h, bytes } of this.#pending.values()) this.#remember(h, bytes);
    for (const [type, entries] of this.#pendingLists)
      this.#track(
        this.#store.putListing(
          repoId,
          type as CachedType,
          entries.map(({ name, size }) => ({ name, size })),
        ),
      );
    // Listings not taken during open (a new repository's keys, its empty snapshot list) are
    // taken now, so the repository can be unlocked offline right away.
    const unlisted = (['keys', 'snapshots', 'index'] as const).filter((t) => !this.#pendingLists.has(t));
    this.#pending.clear();
    this.#pendingLists.clear();
    if (!this.#opts.offline()) this.#track(this.#listAll(unlisted));
    if (!known) await this.settled();
  }

  /** Lists each type through the cache, which keeps the listing; a failure leaves the cache as it was. */
  async #listAll(types: readonly FileType[]): Promise<void> {
    for (const type of types) {
      try {
        for await (const _ of this.list(type)) void _;
      } catch {
        // offline cache stays incomplete; the next online open fills it
      }
    }
  }

  /** Waits for cache writes in flight (tests and close). */
  async settled(): Promise<void> {
    while (this.#writes.size) await Promise.allSettled([...this.#writes]);
  }

  async load(h: Handle, opts: LoadOptions = {}): Promise<Uint8Array> {
    const whole = !opts.offset && !opts.length;
    if (!CACHED.has(h.type) || !whole) {
      if (this.#opts.offline()) throw needsNetwork(h);
      return this.#inner.load(h, opts);
    }
    const repo = this.#repoId;
    // Content-addressed: a cached copy is the copy. The config is checked against the backend
    // while online (a new repository could have been created at the same place).
    if (repo && (h.type !== 'config' || this.#opts.offline()) && this.#mayHold(h)) {
      const hit = await this.#store.getObject(repo, h.type as CachedType, h.name).catch(() => undefined);
      if (hit) {
        this.stats.hits++;
        return hit;
      }
      if (this.#opts.offline()) throw needsNetwork(h);
    }
    this.stats.misses++;
    let bytes: Uint8Array;
    try {
      bytes = await this.#inner.load(h, opts);
    } catch (e) {
      if (repo && isNetworkFailure(e)) {
        const hit = await this.#store.getObject(repo, h.type as CachedType, h.name).catch(() => undefined);
        if (hit) return hit;
      }
      throw e;
    }
    this.#remember(h, bytes);
    return bytes;
  }

  async stat(h: Handle, opts?: RequestOptions): Promise<FileInfo> {
    if (this.#opts.offline()) return this.#cachedStat(h);
    try {
      return await this.#inner.stat(h, opts);
    } catch (e) {
      if (isNetworkFailure(e)) return this.#cachedStat(h, e);
      throw e;
    }
  }

  async *list(type: FileType, opts?: RequestOptions): AsyncIterable<FileInfo> {
    if (!CACHED.has(type) || type === 'config') {
      if (this.#opts.offline()) throw new EngineFault('NEEDS_NETWORK', `listing ${type} needs the network`);
      yield* this.#inner.list(type, opts);
      return;
    }
    let entries: FileInfo[];
    if (this.#opts.offline()) entries = await this.#cachedListing(type);
    else {
      const fallback = this.#repoId && !this.#fresh ? await this.#store.getListing(this.#repoId, type as CachedType).catch(() => undefined) : undefined;
      const timeout = fallback ? AbortSignal.timeout(this.#opts.listTimeoutMs ?? 10_000) : undefined;
      const signal = timeout && opts?.signal ? AbortSignal.any([opts.signal, timeout]) : (timeout ?? opts?.signal);
      try {
        entries = [];
        for await (const fi of this.#inner.list(type, { ...opts, signal })) entries.push(fi);
      } catch (e) {
        const timedOut = timeout?.aborted && !opts?.signal?.aborted;
        if (!isNetworkFailure(e) && !timedOut) throw e;
        entries = await this.#cachedListing(type, e);
      }
      if (this.#repoId)
        this.#track(
          this.#store.putListing(
            this.#repoId,
            type as CachedType,
            entries.map(({ name, size }) => ({ name, size })),
          ),
        );
      else this.#pendingLists.set(type, entries);
    }
    // Taken whole (to cache it), handed on one by one: a caller's abort still stops it.
    for (const e of entries) {
      throwIfAborted(opts?.signal);
      yield e;
    }
  }

  async save(h: Handle, body: SaveData, opts?: RequestOptions): Promise<void> {
    if (this.#opts.offline()) throw needsNetwork(h);
    await this.#inner.save(h, body, opts);
    if (!CACHED.has(h.type)) return;
    const data = bytesOf(body);
    this.#remember(h, data); // held until the repository's ID is known (a new repository's config and key)
    if (h.type !== 'config' && this.#repoId) this.#track(this.#store.editListing(this.#repoId, h.type as CachedType, { name: h.name, size: data.length }));
    // Before adoption: a listing taken earlier in this open (init's "is the bucket there?" list of
    // keys/) must include what was saved since, or the new key is missing from the offline cache.
    else if (h.type !== 'config') this.#pendingLists.get(h.type)?.push({ name: h.name, size: data.length });
  }

  async remove(h: Handle, opts?: RequestOptions): Promise<void> {
    if (this.#opts.offline()) throw needsNetwork(h);
    await this.#inner.remove(h, opts);
    if (CACHED.has(h.type) && this.#repoId) {
      this.#track(this.#store.deleteObject(this.#repoId, h.type as CachedType, h.name));
      this.#track(this.#store.editListing(this.#repoId, h.type as CachedType, undefined, h.name));
    }
  }

  async close(): Promise<void> {
    await this.settled();
    await this.#inner.close();
  }

  #remember(h: Handle, bytes: Uint8Array): void {
    if (!CACHED.has(h.type)) return;
    if (!this.#repoId) {
      this.#pending.set(`${h.type}/${h.name}`, { h, bytes });
      return;
    }
    this.#stored.add(`${h.type}/${h.name}`);
    this.#track(this.#store.putObject(this.#repoId, h.type as CachedType, h.name, bytes));
  }

  /** Whether the cache may hold `h` (see #fresh). */
  #mayHold(h: Handle): boolean {
    return !this.#fresh || this.#stored.has(`${h.type}/${h.name}`);
  }

  #track(p: Promise<unknown>): void {
    const q = p.catch((e: unknown) => noteRefusal(this.stats, e)); // a full or broken cache never fails the operation
    this.#writes.add(q);
    void q.finally(() => this.#writes.delete(q));
  }

  async #cachedListing(type: FileType, cause?: unknown): Promise<FileInfo[]> {
    const got = this.#repoId ? await this.#store.getListing(this.#repoId, type as CachedType).catch(() => undefined) : undefined;
    if (!got)
      throw new EngineFault('NEEDS_NETWORK', `this repository's ${type} are not in the offline cache yet; connect once to fill it`, {
        cause,
        detail: { type },
      });
    return got;
  }

  async #cachedStat(h: Handle, cause?: unknown): Promise<FileInfo> {
    if (this.#repoId && CACHED.has(h.type)) {
      const hit = await this.#store.getObject(this.#repoId, h.type as CachedType, h.name).catch(() => undefined);
      if (hit) return { name: h.type === 'config' ? 'config' : h.name, size: hit.length };
      if (!this.#opts.offline() && cause) throw cause;
      throw new CairnError('NOT_FOUND', `${h.type}/${h.name} is not in the offline cache`, { op: 'stat' });
    }
    if (cause) throw cause;
    throw needsNetwork(h);
  }
}

function needsNetwork(h: Handle): EngineFault {
  const what = h.type === 'data' ? 'file contents' : `${h.type} ${h.name.slice(0, 8)}`;
  return new EngineFault('NEEDS_NETWORK', `reading ${what} from this repository needs the network (only its metadata is kept offline)`, {
    detail: { type: h.type },
  });
}
