// The repository: the only layer that knows keys, config, unpacked files, the index and how
// blobs are read. Writing blobs goes through BlobWriter (blob-writer.ts). Mirrors restic's
// internal/repository.

import { CairnError, isNotFound, throwIfAborted } from '../errors';
import type { Backend, FileType } from '../backend/backend';
import { Key } from '../crypto/keys';
import { open, seal } from '../crypto/seal';
import { hashID, isID, type ID } from '../id';
import { decodeIndex, encodeIndex, type IndexPack, type SavedPack } from '../index/index-file';
import { MasterIndex, type BlobLocation } from '../index/master-index';
import type { BlobType } from '../pack/header';
import { decodeBlob, decodeUnindexed } from './blob-codec';
import { decodeConfig, encodeConfig, newConfig, type Config } from './config';
import { addKey, DEFAULT_KDF, searchKey, type KdfParams, type KeyOwner } from './keyfile';
import { decodeUnpackedPlain, encodeUnpackedPlain, parseJSON, UNPACKED_LIMIT } from './unpacked';
import type { Pol } from '../chunker/polynomial';
import type { CompressionMode } from './blob-codec';
import { mapLimit } from '../concurrency/concurrency';
import { Semaphore } from '../concurrency/semaphore';
import type { BlobCache } from './blob-cache';

export interface IndexLoadOptions {
  signal?: AbortSignal;
  onFile?: (done: number, total: number) => void;
  /**
   * Nobody waits for this load yet (the app's warm-up, its offline fill): each of its steps
   * waits for `indexPace`, until a caller that needs the index joins it.
   */
  background?: boolean;
}

const noPace = async (): Promise<void> => {};

export type UnpackedType = Exclude<FileType, 'data' | 'keys' | 'config'>;

export interface InitOptions {
  owner: KeyOwner;
  kdf?: KdfParams;
  version?: number;
  polynomial?: Pol;
}

export interface OpenOptions {
  keyHint?: string;
  signal?: AbortSignal;
}

/** One index file as loaded: the numbers (in `Repository.index`) of the packs it lists, and its blob count. */
export interface IndexFileInfo {
  packs: number[];
  blobs: number;
}

export interface RepositoryOptions {
  compression?: CompressionMode;
  packSize?: number;
}

export class Repository {
  readonly backend: Backend;
  readonly key: Key;
  /** The key file this session opened with (replaced when its password is changed: key passwd). */
  keyID: ID;
  readonly config: Config;
  readonly index = new MasterIndex();
  compression: CompressionMode = 'auto';
  packSize: number | undefined;
  /** Sealed blobs kept outside the backend (the app's offline tree cache); see blob-cache.ts. */
  blobCache: BlobCache | undefined;
  /**
   * Awaited before each step of a background index load (fetching an index file, decoding
   * it): what else runs on this thread may go first (the app's session holds the load while
   * the page reads folders or searches from its cache). A caller that needs the index ends the
   * wait, so the holder may itself need the index.
   */
  indexPace: (() => Promise<void>) | undefined;
  #indexLoaded = false;
  readonly #indexFiles = new Map<ID, IndexFileInfo>();
  #indexLoading: Promise<void> | undefined;
  /** Ends the running background load's pacing: someone needs the index now. */
  #indexNeeded: (() => void) | undefined;
  /**
   * Sealed tree blobs read ahead with a sibling: a tree miss reads every tree of its pack in
   * one request (restic caches whole tree packs for the same reason), so walking a snapshot
   * over a bucket costs a request per tree pack, not per directory. Bounded; oldest out first.
   */
  readonly #treesAhead = new Map<ID, Uint8Array>();
  #treesAheadBytes = 0;
  readonly #treePackLoads = new Map<ID, Promise<void>>();

  constructor(backend: Backend, key: Key, keyID: ID, config: Config, opts: RepositoryOptions = {}) {
    this.backend = backend;
    this.key = key;
    this.keyID = keyID;
    this.config = config;
    this.compression = opts.compression ?? 'auto';
    this.packSize = opts.packSize;
  }

  get version(): number {
    return this.config.version;
  }

  static async init(backend: Backend, password: string, opts: InitOptions): Promise<Repository> {
    if (await exists(backend)) throw new CairnError('REPO_EXISTS', `a repository already exists at ${backend.location}`, { op: 'init' });
    const master = Key.random();
    const config = newConfig(opts.version, opts.polynomial);
    const sealed = await seal(master, new TextEncoder().encode(encodeConfig(config)));
    const keyID = await addKey(backend, master, password, opts.owner, opts.kdf ?? DEFAULT_KDF);
    await backend.save({ type: 'config', name: '' }, sealed);
    return new Repository(backend, master, keyID, config);
  }

  static async open(backend: Backend, password: string, opts: OpenOptions = {}): Promise<Repository> {
    // The config is fetched while the key is searched for (the key's scrypt is most of an open);
    // a missing config is still reported before anything the key search found.
    // The search stops with the caller's signal, or when the config says there is no repository.
    const noConfig = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, noConfig.signal]) : noConfig.signal;
    const found = searchKey(backend, password, { ...opts, signal });
    found.catch(() => {}); // answered below, after the config
    let sealed: Uint8Array;
    try {
      sealed = await loadConfigFile(backend, opts.signal);
    } catch (e) {
      noConfig.abort();
      throw e;
    }
    const { id, key } = await found;
    let config: Config;
    try {
      const plain = await open(key, sealed);
      config = decodeConfig(parseJSON(decodeUnpackedPlain(plain, 'config', 'BAD_CONFIG', UNPACKED_LIMIT.config), 'config', 'BAD_CONFIG'));
    } catch (e) {
      if (e instanceof CairnError && e.code === 'BAD_CONFIG') throw e;
      // restic: "config or key … is damaged": the key opened, so the config is the likelier one.
      const why =
        e instanceof CairnError && e.code === 'MAC_MISMATCH'
          ? `fails authentication with key ${id.slice(0, 8)} (the config, or that key, is damaged)`
          : (e as Error).message;
      throw new CairnError('BAD_CONFIG', `config cannot be read: ${why}`, { cause: e, op: 'open' });
    }
    return new Repository(backend, key, id, config);
  }

  /** IDs of all stored objects of a type (names that are not IDs, like temp files, are skipped). */
  async listIDs(type: Exclude<FileType, 'config'>, signal?: AbortSignal): Promise<ID[]> {
    const ids: ID[] = [];
    for await (const fi of this.backend.list(type, { signal })) if (isID(fi.name)) ids.push(fi.name);
    return ids;
  }

  /** Loads, verifies and decrypts an unpacked file; returns its parsed JSON. */
  async loadJSON(type: UnpackedType, id: ID, signal?: AbortSignal): Promise<unknown> {
    return this.#parseUnpacked(type, id, await this.loadUnpacked(type, id, signal));
  }

  #parseUnpacked(type: UnpackedType, id: ID, json: Uint8Array): unknown {
    return parseJSON(json, `${type} ${id.slice(0, 8)}`, type === 'snapshots' ? 'BAD_SNAPSHOT' : 'BAD_INDEX');
  }

  /** Loads (or takes `fetched`, its bytes as read already), verifies and decrypts an unpacked file; returns its JSON bytes. */
  async loadUnpacked(type: UnpackedType, id: ID, signal?: AbortSignal, fetched?: Promise<Uint8Array>): Promise<Uint8Array> {
    return this.#openUnpacked(type, id, await (fetched ?? this.backend.load({ type, name: id }, { signal })));
  }

  /** Verifies and decrypts a fetched unpacked file, awaiting `pace` before each step. */
  async #openUnpacked(type: UnpackedType, id: ID, bytes: Uint8Array, pace = noPace): Promise<Uint8Array> {
    const what = `${type.replace(/s$/, '')} ${id.slice(0, 8)}`;
    const code = type === 'snapshots' ? 'BAD_SNAPSHOT' : 'BAD_INDEX';
    await pace();
    if ((await hashID(bytes)) !== id) {
      throw new CairnError('HASH_MISMATCH', `${what}: content does not match its name`, { detail: { type, id } });
    }
    let plain: Uint8Array;
    await pace();
    try {
      plain = await open(this.key, bytes);
    } catch (e) {
      throw new CairnError('MAC_MISMATCH', `${what}: fails authentication (corrupt, or written with another key)`, { cause: e, detail: { type, id } });
    }
    await pace();
    return decodeUnpackedPlain(plain, what, code, UNPACKED_LIMIT[type]);
  }

  /** Seals JSON as an unpacked file and stores it; returns its ID. */
  async saveJSON(type: UnpackedType, json: string | Uint8Array, signal?: AbortSignal): Promise<ID> {
    const sealed = await seal(this.key, encodeUnpackedPlain(json, this.version));
    const id = await hashID(sealed);
    await this.backend.save({ type, name: id }, sealed, { signal });
    return id;
  }

  /** Whether the master index holds every index file (loadIndex has finished). */
  get indexLoaded(): boolean {
    return this.#indexLoaded;
  }

  /**
   * A blob from the blob cache alone, without the index (a folder opened while the index still
   * loads need not wait for it): verified by its content hash. Undefined when the cache does
   * not hold it or its copy does not verify; loadBlob reads it then.
   */
  async cachedBlob(type: BlobType, id: ID): Promise<Uint8Array | undefined> {
    const cache = this.blobCache?.wants(type) ? this.blobCache : undefined;
    const sealed = cache ? await cache.get(type, id).catch(() => undefined) : undefined;
    return sealed ? decodeUnindexed(this.key, sealed, type, id) : undefined;
  }

  /** Loads every index file into the master index (once), each file's steps after `indexPace`. */
  async loadIndex(opts: IndexLoadOptions = {}): Promise<void> {
    if (this.#indexLoaded) return;
    // Callers at the same time (a listing and a background warm-up, say) share one load.
    if (this.#indexLoading) {
      if (!opts.background) this.#indexNeeded?.();
      try {
        return await this.#indexLoading;
      } catch (e) {
        // The other caller gave up (its signal): load for this one.
        if (!(e instanceof CairnError && e.code === 'ABORTED') || opts.signal?.aborted) throw e;
        return this.loadIndex(opts);
      }
    }
    const loading = this.#loadIndex(opts);
    this.#indexLoading = loading;
    try {
      await loading;
    } finally {
      if (this.#indexLoading === loading) this.#indexLoading = undefined;
    }
  }

  async #loadIndex(opts: IndexLoadOptions): Promise<void> {
    const pace = this.#indexLoadPace(opts);
    const ids = await this.listIDs('index', opts.signal);
    // Fetched 8 at a time, decoded one at a time: what else runs on this thread waits behind
    // one step of one file, never behind a step of each of eight.
    const decoding = new Semaphore(1);
    let done = 0;
    await mapLimit(ids, 8, async (id) => {
      await pace();
      const sealed = await this.backend.load({ type: 'index', name: id }, { signal: opts.signal });
      await decoding.acquire(opts.signal);
      try {
        const json = await this.#openUnpacked('index', id, sealed, pace);
        await pace();
        const packs = decodeIndex(this.#parseUnpacked('index', id, json), id);
        await pace();
        this.#addIndexFile(id, packs);
      } finally {
        decoding.release();
      }
      opts.onFile?.(++done, ids.length);
    });
    this.#indexLoaded = true;
  }

  /** A background load's pace: `indexPace`, until a caller that needs the index joins; none for the others. */
  #indexLoadPace(opts: IndexLoadOptions): () => Promise<void> {
    const pace = this.indexPace;
    if (!opts.background || !pace) return noPace;
    const needed = new Promise<void>((r) => (this.#indexNeeded = r));
    let urgent = false;
    void needed.then(() => (urgent = true));
    return () => (urgent ? Promise.resolve() : Promise.race([pace(), needed]));
  }

  #addIndexFile(id: ID, packs: IndexPack[]): void {
    const numbers: number[] = [];
    let blobs = 0;
    for (const p of packs) {
      // A pack listed by two files (an interrupted index rewrite) is the same pack: once.
      numbers.push(this.index.packNumber(p.id) ?? this.index.addPack(p.id, p.blobs));
      blobs += p.blobs.length;
    }
    this.#indexFiles.set(id, { packs: numbers, blobs });
  }

  /** What each index file loaded by `loadIndex` lists (prune rewrites the index file by file). */
  get indexFiles(): ReadonlyMap<ID, IndexFileInfo> {
    return this.#indexFiles;
  }

  /**
   * Forgets the loaded index and everything read ahead through it; the next `loadIndex` reads
   * the files again (prune: after taking its lock, and after rewriting the index).
   */
  dropIndex(): void {
    this.index.clear();
    this.#indexFiles.clear();
    this.#indexLoaded = false;
    this.#treesAhead.clear();
    this.#treesAheadBytes = 0;
  }

  /** Writes one index file listing `packs` (already stored) and adds them to the master index. */
  async saveIndex(packs: readonly (IndexPack | SavedPack)[], signal?: AbortSignal): Promise<ID> {
    return this.saveJSON('index', encodeIndex(packs), signal);
  }

  lookupBlob(type: BlobType, id: ID): BlobLocation | undefined {
    return this.index.lookup(type, id);
  }

  /** Reads a blob, trying every stored copy; verifies its content hash. */
  async loadBlob(type: BlobType, id: ID, signal?: AbortSignal): Promise<Uint8Array> {
    const locs = this.index.lookupAll(type, id);
    if (locs.length === 0) throw new CairnError('BLOB_NOT_FOUND', `${type} blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id, type } });
    const cache = this.blobCache?.wants(type) ? this.blobCache : undefined;
    if (cache) {
      const sealed = await cache.get(type, id).catch(() => undefined);
      if (sealed) {
        // Copies of a blob may differ in compression; the MAC fails fast on the wrong one.
        for (const loc of locs) {
          try {
            return await decodeBlob(this.key, sealed, loc);
          } catch {
            // try the next copy's length
          }
        }
        await cache.drop(type, id).catch(() => {});
      }
    }
    if (type === 'tree') {
      const plain = await this.#treeAhead(id, locs, cache, signal);
      if (plain) return plain;
    }
    let last: unknown;
    for (const loc of locs) {
      try {
        const sealed = await this.backend.load({ type: 'data', name: loc.packID }, { offset: loc.offset, length: loc.length, signal });
        if (sealed.length !== loc.length)
          throw new CairnError('BAD_PACK', `pack ${loc.packID.slice(0, 8)} is shorter than its index says`, { detail: { pack: loc.packID } });
        const plain = await decodeBlob(this.key, sealed, loc);
        if (cache) await cache.put(type, id, sealed).catch(() => {});
        return plain;
      } catch (e) {
        if (e instanceof CairnError && e.code === 'ABORTED') throw e;
        last = outOfPack(e, type, id, loc);
      }
    }
    throw last;
  }

  /** A tree from the read-ahead, reading its pack's trees first if they are not there. */
  async #treeAhead(id: ID, locs: BlobLocation[], cache: BlobCache | undefined, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    const loc = locs[0]!;
    if (!this.#treesAhead.has(id)) await this.#loadTreePack(loc.packID, signal).catch(() => {}); // a failed read-ahead falls back to reading the blob alone
    const sealed = this.#treesAhead.get(id);
    if (!sealed) return undefined;
    for (const l of locs) {
      if (l.length !== sealed.length) continue;
      try {
        const plain = await decodeBlob(this.key, sealed, l);
        if (cache) await cache.put('tree', id, sealed).catch(() => {});
        return plain;
      } catch {
        // another copy, or the blob alone from the backend
      }
    }
    this.#dropAhead(id);
    return undefined;
  }

  /** Reads a pack's trees ahead once, however many ask at the same time. */
  #loadTreePack(packID: ID, signal?: AbortSignal): Promise<void> {
    let loading = this.#treePackLoads.get(packID);
    if (!loading) {
      loading = this.#readTreePack(packID, signal).finally(() => this.#treePackLoads.delete(packID));
      this.#treePackLoads.set(packID, loading);
    }
    return loading;
  }

  /**
   * Reads the trees of every pack holding trees ahead, `concurrency` packs at once, as far as
   * half the read-ahead budget goes: for a walk over all snapshots (prune), whose trees would
   * otherwise be found pack by pack, one request after another.
   */
  async readTreesAhead(opts: { signal?: AbortSignal; concurrency?: number } = {}): Promise<void> {
    const packs: ID[] = [];
    let bytes = 0;
    for (const packID of this.index.packIDs()) {
      const trees = this.index.treesInPack(packID);
      if (trees.length < 2) continue;
      const span = trees[trees.length - 1]!.offset + trees[trees.length - 1]!.length - trees[0]!.offset;
      const treeBytes = trees.reduce((n, t) => n + t.length, 0);
      if (treeBytes * 2 < span || bytes + span > TREES_AHEAD_BUDGET / 2) continue; // as #readTreePack
      bytes += span;
      packs.push(packID);
    }
    await mapLimit(packs, Math.max(1, opts.concurrency ?? 4), async (packID) => {
      throwIfAborted(opts.signal);
      // A pack that cannot be read ahead is read tree by tree when needed.
      await this.#loadTreePack(packID, opts.signal).catch(() => throwIfAborted(opts.signal));
    });
  }

  async #readTreePack(packID: ID, signal?: AbortSignal): Promise<void> {
    const trees = this.index.treesInPack(packID);
    if (trees.length < 2) return;
    const start = trees[0]!.offset;
    const end = trees.reduce((m, t) => Math.max(m, t.offset + t.length), 0);
    const treeBytes = trees.reduce((n, t) => n + t.length, 0);
    // Only a span that is mostly trees and fits the budget (not a pack mixed with file data).
    if (end - start > TREES_AHEAD_BUDGET / 2 || treeBytes * 2 < end - start) return;
    const bytes = await this.backend.load({ type: 'data', name: packID }, { offset: start, length: end - start, signal });
    if (bytes.length !== end - start) return;
    for (const t of trees) {
      if (this.#treesAhead.has(t.id)) continue;
      this.#treesAhead.set(t.id, bytes.slice(t.offset - start, t.offset - start + t.length));
      this.#treesAheadBytes += t.length;
    }
    for (const [old, b] of this.#treesAhead) {
      if (this.#treesAheadBytes <= TREES_AHEAD_BUDGET) break;
      this.#treesAhead.delete(old);
      this.#treesAheadBytes -= b.length;
    }
  }

  #dropAhead(id: ID): void {
    const b = this.#treesAhead.get(id);
    if (!b) return;
    this.#treesAhead.delete(id);
    this.#treesAheadBytes -= b.length;
  }
}

/** A read past the end of a pack, said as what it means: the index and the pack disagree. */
function outOfPack(e: unknown, type: BlobType, id: ID, loc: BlobLocation): unknown {
  if (!(e instanceof CairnError) || e.detail['reason'] !== 'out-of-range') return e;
  return new CairnError(
    'BAD_PACK',
    `pack ${loc.packID.slice(0, 8)} is shorter than its index says: ${type} blob ${id.slice(0, 8)} at offset ${loc.offset}, length ${loc.length} runs past its end (${String(e.detail['size'])} bytes)`,
    { cause: e, detail: { pack: loc.packID, blob: id, type } },
  );
}

/** Bytes of sealed trees kept from read-ahead. */
const TREES_AHEAD_BUDGET = 64 << 20;

async function exists(backend: Backend, signal?: AbortSignal): Promise<boolean> {
  try {
    await backend.stat({ type: 'config', name: '' }, { signal });
    return true;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  await requireBucket(backend, signal);
  return false;
}

/** The sealed config, or NOT_A_REPOSITORY (NO_SUCH_BUCKET when the bucket itself is missing). */
async function loadConfigFile(backend: Backend, signal?: AbortSignal): Promise<Uint8Array> {
  try {
    return await backend.load({ type: 'config', name: '' }, { signal });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  await requireBucket(backend, signal);
  throw new CairnError('NOT_A_REPOSITORY', `no repository at ${backend.location} (config file not found)`, { op: 'open' });
}

/**
 * Throws NO_SUCH_BUCKET (from the backend) when the storage itself is missing. A 404 for a
 * missing object and for a missing bucket can look the same (a HEAD has no body); a listing
 * tells them apart, so the error can name the real problem.
 */
async function requireBucket(backend: Backend, signal?: AbortSignal): Promise<void> {
  for await (const _ of backend.list('keys', { signal })) break;
}
