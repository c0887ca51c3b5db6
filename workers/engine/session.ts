// The open repository and everything the engine keeps decrypted about it — in this worker's
// memory only: the master key (inside Repository), decoded snapshots, and recently used
// trees. Closing the session (or the page) drops all of it.

import type { Backend } from '../../core/backend/backend';
import { decodeTree, type Tree } from '../../core/data';
import type { ID } from '../../core/id';
import type { Repository } from '../../core/repository/repository';
import { loadSnapshot, type SnapshotEntry } from '../../core/repository/snapshots';
import { mapLimit } from '../../core/concurrency/concurrency';
import { CairnError } from '../../core/errors';
import type { RepoInfo, RepoLocation } from '../api';
import type { CachedBackend } from '../cache/cached-backend';
import { EngineFault } from '../errors';
import { browserOffline, describeLocation, isRemote } from '../location';

const TREE_CACHE_ENTRIES = 4000;

export class Session {
  readonly loc: RepoLocation;
  readonly locationKey: string;
  readonly repo: Repository;
  readonly cached: CachedBackend | undefined;
  readonly forcedOffline: boolean;
  remembered: boolean;
  #snapshots: Map<ID, SnapshotEntry> | undefined;
  readonly #trees = new Map<ID, Tree>();
  readonly #closed = new AbortController();
  #warming: Promise<{ trees: number }> | undefined;

  constructor(init: { loc: RepoLocation; locationKey: string; repo: Repository; cached?: CachedBackend; offline: boolean; remembered: boolean }) {
    this.loc = init.loc;
    this.locationKey = init.locationKey;
    this.repo = init.repo;
    this.cached = init.cached;
    this.forcedOffline = init.offline;
    this.remembered = init.remembered;
  }

  get backend(): Backend {
    return this.repo.backend;
  }

  /** Is the engine working from the offline cache right now? */
  get offline(): boolean {
    return isRemote(this.loc) && (this.forcedOffline || browserOffline());
  }

  requireOnline(what: string): void {
    if (this.offline) throw new EngineFault('NEEDS_NETWORK', `${what} needs the network: this repository is in a bucket and the browser is offline`);
  }

  async info(): Promise<RepoInfo> {
    return {
      id: this.repo.config.id,
      version: this.repo.version,
      location: describeLocation(this.loc),
      locationKey: this.locationKey,
      snapshots: (await this.snapshots()).length,
      offline: this.offline,
      remembered: this.remembered,
    };
  }

  /** Every snapshot, oldest first; decoded once per session, refreshed from the listing. */
  async snapshots(signal?: AbortSignal): Promise<SnapshotEntry[]> {
    const known = this.#snapshots ?? new Map<ID, SnapshotEntry>();
    const ids = await this.repo.listIDs('snapshots', signal);
    const fresh = new Map<ID, SnapshotEntry>();
    const missing = ids.filter((id) => !known.has(id));
    for (const id of ids) if (known.has(id)) fresh.set(id, known.get(id)!);
    // Each snapshot file is read (from the cache when it has it) and decrypted once per session;
    // an unreadable one is left out rather than hiding the others.
    await mapLimit(missing, 8, async (id) => {
      try {
        fresh.set(id, { id, snapshot: await loadSnapshot(this.repo, id, signal) });
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

  forgetSnapshots(): void {
    this.#snapshots = undefined;
  }

  /** A decoded tree, from memory, then the cache/backend (Repository.loadBlob verifies it). */
  async tree(id: ID, signal?: AbortSignal): Promise<Tree> {
    const hit = this.#trees.get(id);
    if (hit) {
      this.#trees.delete(id); // LRU: move to the back
      this.#trees.set(id, hit);
      return hit;
    }
    await this.repo.loadIndex({ signal });
    const bytes = await this.repo.loadBlob('tree', id, signal);
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
   * Fills the offline cache: every snapshot's trees (and, on the way, the snapshot and index
   * files) are fetched once so that browsing, search and diff work without the network.
   * Runs in the background after open and after each backup; awaiting it is optional.
   */
  warmOfflineCache(): Promise<{ trees: number }> {
    if (!this.cached || this.offline) return Promise.resolve({ trees: 0 });
    this.#warming ??= this.#warm().finally(() => (this.#warming = undefined));
    return this.#warming;
  }

  async #warm(): Promise<{ trees: number }> {
    const signal = this.#closed.signal;
    await this.repo.loadIndex({ signal });
    const seen = new Set<ID>();
    let frontier = (await this.snapshots(signal)).map((e) => e.snapshot.tree);
    while (frontier.length > 0) {
      const next: ID[] = [];
      await mapLimit(frontier, 8, async (id) => {
        if (seen.has(id)) return;
        seen.add(id);
        const tree = await this.tree(id, signal);
        for (const n of tree.nodes) if (n.type === 'dir' && n.subtree && !seen.has(n.subtree)) next.push(n.subtree);
      });
      frontier = next;
    }
    await this.cached?.settled();
    return { trees: seen.size };
  }

  async close(): Promise<void> {
    this.#closed.abort();
    this.#trees.clear();
    this.#snapshots = undefined;
    await this.backend.close().catch(() => {});
  }
}
