// The walk over the source (restic archiver.save / saveDir / saveTree): each directory is
// listed in its turn (listing-scheduler.ts), its entries saved concurrently — files through
// the FileArchiver, subdirectories recursively, anything else as a node without content — and
// its tree stored bottom-up once every child is done. Intermediate path components of the
// targets ("home", "u" for /home/u/docs) become directories holding only the next component.
// The first failure anywhere fails the walk: the rest stop listing, and it is what surfaces.

import type { Node, Tree } from '../data';
import type { BackupStats, CompletedItem } from './backup-stats';
import type { FileArchiver } from './file-archiver';
import type { ListingScheduler } from './listing-scheduler';
import { bareDir } from './parent';
import { isUnlistable, type SourceEntry, type SourceFS } from './source';
import type { TargetDir } from './targets';
import type { TreeSaver } from './tree-saver';
import { CairnError, throwIfAborted } from '../errors';

export interface SourceWalkerDeps {
  source: SourceFS;
  files: FileArchiver;
  trees: TreeSaver;
  scheduler: ListingScheduler;
  stats: BackupStats;
  /** The parent's tree `id` for the folder at `path` (undefined when there is none or it cannot be read, which is reported). */
  parentTree(id: string | undefined, path: string): Promise<Tree | undefined>;
  warn(path: string, e: unknown): void;
  /** Leaves an entry (and everything under it) out. */
  exclude?: (path: string, entry: SourceEntry) => boolean;
  onItem?: (item: CompletedItem) => void;
  signal?: AbortSignal;
}

export class SourceWalker {
  readonly #d: SourceWalkerDeps;

  constructor(deps: SourceWalkerDeps) {
    this.#d = deps;
  }

  /** Saves the targets' skeleton and everything below it; resolves to the root node (its subtree: the snapshot's tree). */
  async root(targets: TargetDir[], parentRoot: string | undefined): Promise<Node> {
    const old = parentRoot === undefined ? undefined : bareDir(parentRoot);
    return (await this.#dir(undefined, [], old, await this.#d.parentTree(parentRoot, '/'), targets))!;
  }

  /** `started` is called once the entry no longer waits: a file handed to a saver, or done. */
  async #entry(entry: SourceEntry, old: Node | undefined, started: () => void): Promise<Node | undefined> {
    const d = this.#d;
    throwIfAborted(d.signal);
    if (d.exclude?.(entry.path, entry)) return undefined;
    switch (entry.node.type) {
      case 'dir': {
        const oldDir = old?.type === 'dir' ? old : undefined;
        const listed = await d.scheduler.turn(() => this.#list(entry, oldDir));
        return listed && this.#dir(entry, listed[0], oldDir, listed[1]);
      }
      case 'file':
        return d.files.save(entry, old?.type === 'file' && old.content ? old : undefined, started);
      case 'socket':
        return undefined; // restic leaves sockets out, silently: nothing to restore from one
      default:
        return { ...entry.node, content: null };
    }
  }

  /** A directory's entries and its tree in the parent; undefined (warned) when it cannot be listed. */
  async #list(entry: SourceEntry, oldDir: Node | undefined): Promise<[SourceEntry[], Tree | undefined] | undefined> {
    const d = this.#d;
    const listing = d.source.readDir(entry, d.warn, d.signal).catch((e) => {
      if (!isUnlistable(e)) throw e;
      d.warn(entry.path, e);
      return undefined;
    });
    const [children, oldTree] = await Promise.all([listing, d.parentTree(oldDir?.subtree, entry.path)]);
    if (!children) return undefined;
    let files = 0;
    for (const c of children) if (c.node.type === 'file') files++;
    d.scheduler.filesListed(files); // before the next turn is given
    return [children, oldTree];
  }

  async #dir(
    entry: SourceEntry | undefined,
    children: SourceEntry[],
    old: Node | undefined,
    oldTree: Tree | undefined,
    virtual?: TargetDir[],
  ): Promise<Node | undefined> {
    const t0 = this.#d.onItem ? Date.now() : 0;
    const oldByName = new Map((oldTree?.nodes ?? []).map((n) => [n.name, n]));
    const nodes = await this.#children(children, oldByName);
    for (const v of virtual ?? []) {
      const n = await this.#target(v, oldByName.get(v.name));
      if (n) nodes.push(n);
    }
    if (!entry && nodes.length === 0) throw new CairnError('SNAPSHOT_EMPTY', 'snapshot is empty');
    const tree = await this.#d.trees.save(nodes);
    const change = !old ? 'new' : old.subtree === tree.id ? 'unmodified' : 'changed';
    this.#d.stats.add(tree.stats);
    if (!entry) return bareDir(tree.id); // the snapshot's root: counted as no directory, as in restic
    this.#d.stats.dir(change);
    const action = change === 'new' ? 'new' : change === 'unmodified' ? 'unchanged' : 'modified';
    this.#d.onItem?.({ path: entry.path + '/', type: 'dir', action, stats: tree.stats, durationMs: Date.now() - t0 });
    return { ...entry.node, content: null, subtree: tree.id };
  }

  /** Saves a directory's entries concurrently; the nodes of those kept, in listing order. */
  async #children(children: SourceEntry[], oldByName: Map<string, Node>): Promise<Node[]> {
    const scheduler = this.#d.scheduler;
    // Queued last to first: the newest waiter goes first, so the first subdirectory is walked first.
    const pending: Promise<Node | undefined>[] = new Array(children.length);
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      let waiting = child.node.type === 'file'; // counted in filesWaiting when listed
      const started = () => {
        if (!waiting) return;
        waiting = false;
        scheduler.fileStarted();
      };
      pending[i] = this.#entry(child, oldByName.get(child.node.name), started).then(
        (n) => (started(), n),
        (e) => {
          started();
          scheduler.fail(e);
          throw e;
        },
      );
    }
    const nodes: Node[] = [];
    for (const r of await Promise.allSettled(pending)) {
      if (r.status === 'rejected') throw scheduler.failure?.e ?? r.reason;
      if (r.value) nodes.push(r.value);
    }
    return nodes;
  }

  /** A target is saved whole (a warning if it cannot be read); an intermediate component holds only the next one. */
  async #target(t: TargetDir, old: Node | undefined): Promise<Node | undefined> {
    const d = this.#d;
    if (t.target) {
      const entry = await d.source.stat(t.path, d.signal).catch((e) => void d.warn(t.path, e));
      return entry ? this.#entry(entry, old, () => {}) : undefined;
    }
    const entry = await d.source.stat(t.path, d.signal);
    const oldDir = old?.type === 'dir' ? old : undefined;
    return this.#dir(entry, [], oldDir, await d.parentTree(oldDir?.subtree, t.path), t.children);
  }
}
