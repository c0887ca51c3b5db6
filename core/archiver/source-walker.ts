// The walk over the source (restic archiver.save / saveDir / saveTree): each directory is
// listed in its turn (listing-scheduler.ts), its entries saved concurrently — files through
// the FileArchiver, subdirectories recursively, anything else as a node without content — and
// its tree stored bottom-up once every child is done. Intermediate path components of the
// targets ("home", "u" for /home/u/docs) become directories holding only the next component.
// The first failure anywhere fails the walk: the rest stop listing, and it is what surfaces.

import { sortByName, TreeBuilder, type Node, type Tree } from '../data';
import type { BackupStats, CompletedItem } from './backup-stats';
import type { FileArchiver } from './file-archiver';
import type { ListingScheduler } from './listing-scheduler';
import { EntriesAhead } from './entries-ahead';
import { bareDir, ParentNodes } from './parent';
import { isUnlistable, type SourceEntry, type SourceFS } from './source';
import type { TargetDir } from './targets';
import type { SavedTree, TreeSaver } from './tree-saver';
import { CairnError, throwIfAborted } from '../errors';
import { Semaphore } from '../concurrency/semaphore';
import { macrotask } from '../concurrency/concurrency';

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
  /** Files being saved at once (default FILES_IN_FLIGHT). */
  filesInFlight?: number;
  signal?: AbortSignal;
}

/** A listed child: its entry, or only its name where the source lists names (SourceFS.readNames). */
type Listed = SourceEntry | string;

/** Is it counted as a listed file waiting for a saver? A name is, until its lstat says otherwise. */
function countsAsFile(c: Listed): boolean {
  return typeof c === 'string' || c.node.type === 'file';
}

/** Names lstat'ed between two turns of the event loop. */
const RESOLVE_BATCH = 512;

/** Files being saved at once, over the whole walk (each holds its entry, a few promises and a slot in some folder's loop). */
const FILES_IN_FLIGHT = 512;

export class SourceWalker {
  readonly #d: SourceWalkerDeps;
  readonly #slots: Semaphore;

  constructor(deps: SourceWalkerDeps) {
    this.#d = deps;
    this.#slots = new Semaphore(deps.filesInFlight ?? FILES_IN_FLIGHT);
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

  /** A directory's entries (or names, where the source lists names) and its tree in the parent; undefined (warned) when it cannot be listed. */
  async #list(entry: SourceEntry, oldDir: Node | undefined): Promise<[Listed[], Tree | undefined] | undefined> {
    const d = this.#d;
    const { readNames, entryOf } = d.source;
    const read: Promise<Listed[]> = readNames && entryOf ? readNames.call(d.source, entry, d.signal) : d.source.readDir(entry, d.warn, d.signal);
    const listing = read.catch((e) => {
      if (!isUnlistable(e)) throw e;
      d.warn(entry.path, e);
      return undefined;
    });
    const [children, oldTree] = await Promise.all([listing, d.parentTree(oldDir?.subtree, entry.path)]);
    if (!children) return undefined;
    let files = 0;
    for (const c of children) if (countsAsFile(c)) files++;
    d.scheduler.filesListed(files); // before the next turn is given
    return [children, oldTree];
  }

  /** A listed child's entry: as listed, or (a name) lstat'ed now or `ahead`; undefined (warned) when it cannot be read. */
  async #resolve(dir: SourceEntry | undefined, c: Listed, i: number, ahead: EntriesAhead | undefined): Promise<SourceEntry | undefined> {
    if (typeof c !== 'string') return c;
    const d = this.#d;
    // Names may be lstat'ed synchronously one after the other: other work gets a turn now and then.
    if (i % RESOLVE_BATCH === RESOLVE_BATCH - 1) await new Promise<void>((r) => macrotask(r));
    try {
      const got = ahead ? await ahead.get(i) : await d.source.entryOf!(dir!, c, d.signal);
      if (got instanceof CairnError) throw got;
      return got;
    } catch (e) {
      if (!(e instanceof CairnError && e.code === 'SOURCE_READ')) throw e;
      d.warn(typeof e.detail['path'] === 'string' ? e.detail['path'] : c, e);
      return undefined;
    }
  }

  async #dir(
    entry: SourceEntry | undefined,
    children: Listed[],
    old: Node | undefined,
    oldTree: Tree | undefined,
    virtual?: TargetDir[],
  ): Promise<Node | undefined> {
    const t0 = this.#d.onItem ? Date.now() : 0;
    const tree = virtual ? await this.#skeleton(entry, oldTree, virtual) : await this.#stream(entry, children, oldTree);
    const change = !old ? 'new' : old.subtree === tree.id ? 'unmodified' : 'changed';
    this.#d.stats.add(tree.stats);
    if (!entry) return bareDir(tree.id); // the snapshot's root: counted as no directory, as in restic
    this.#d.stats.dir(change);
    const action = change === 'new' ? 'new' : change === 'unmodified' ? 'unchanged' : 'modified';
    this.#d.onItem?.({ path: entry.path + '/', type: 'dir', action, stats: tree.stats, durationMs: Date.now() - t0 });
    return { ...entry.node, content: null, subtree: tree.id };
  }

  /** A listed folder's tree: its entries in name order, each node written into the tree as soon as those before it are. */
  async #stream(dir: SourceEntry | undefined, children: Listed[], oldTree: Tree | undefined): Promise<SavedTree> {
    const builder = new TreeBuilder();
    await this.#children(
      dir,
      sortByName(children, (c) => (typeof c === 'string' ? { name: c } : c.node)),
      new ParentNodes(oldTree),
      (n) => builder.add(n),
    );
    return this.#d.trees.saveEncoded(builder.finish());
  }

  /** A folder of the targets' skeleton: the few components below it, saved one after the other. */
  async #skeleton(entry: SourceEntry | undefined, oldTree: Tree | undefined, virtual: TargetDir[]): Promise<SavedTree> {
    const oldByName = new Map((oldTree?.nodes ?? []).map((n) => [n.name, n]));
    const nodes: Node[] = [];
    for (const v of virtual) {
      const n = await this.#target(v, oldByName.get(v.name));
      if (n) nodes.push(n);
    }
    if (!entry && nodes.length === 0) throw new CairnError('SNAPSHOT_EMPTY', 'snapshot is empty');
    return this.#d.trees.save(nodes);
  }

  /**
   * Saves a folder's entries (in name order) and hands their nodes to `write` in that order,
   * leaving out those dropped. Entries start in order, a file only once the walk has a slot for
   * it, so a folder of 200 000 files holds at most FILES_IN_FLIGHT files' promises (restic
   * blocks its walker on the savers the same way), and a node waits in memory only until the
   * entries before it are done: the tree is written as the folder is saved, not held as 200 000
   * node objects. Subdirectories are listed one after the other, each in its turn, beside the
   * files: siblings never all list at once, and the files of this folder never wait for a
   * sibling's listing. A child listed by name only is lstat'ed when its turn comes; once an
   * entry is started, this folder forgets its listing entry.
   */
  async #children(dir: SourceEntry | undefined, listed: Listed[], parent: ParentNodes, write: (n: Node) => void): Promise<void> {
    const children: (Listed | undefined)[] = listed;
    const { entriesOf } = this.#d.source;
    const ahead = entriesOf && dir && typeof listed[0] === 'string' ? new EntriesAhead(this.#d.source, dir, children, this.#d.signal) : undefined;
    // Per entry: undefined while it runs, null when it was left out, else its node until written.
    const done: (Node | null | undefined)[] = new Array<Node | null | undefined>(children.length);
    let next = 0;
    const drain = () => {
      for (; next < done.length && done[next] !== undefined; next++) {
        const n = done[next];
        done[next] = undefined;
        if (n) write(n);
      }
    };
    const running = new Set<Promise<void>>();
    let failure: { e: unknown } | undefined;
    const track = (i: number, p: Promise<Node | undefined>) => {
      const r = p.then((n) => {
        done[i] = n ?? null;
        if (i === next) drain();
      });
      running.add(r);
      r.then(
        () => running.delete(r),
        (e) => {
          running.delete(r);
          failure ??= { e };
          this.#d.scheduler.fail(e);
        },
      );
    };
    let listings: Promise<unknown> = Promise.resolve();
    let i = 0;
    for (; i < children.length && !failure; i++) {
      const listedAsFile = countsAsFile(children[i]!);
      const child = await this.#resolve(dir, children[i]!, i, ahead).catch((e: unknown) => void ((failure ??= { e }), this.#d.scheduler.fail(e)));
      if (failure) break;
      children[i] = undefined;
      // Counted as a listed file: it stops waiting here unless a saver is to take it.
      if (listedAsFile && child?.node.type !== 'file') this.#d.scheduler.fileStarted();
      if (!child) {
        track(i, Promise.resolve(undefined));
        continue;
      }
      const old = parent.take(child.node);
      if (child.node.type === 'dir') {
        const sub = this.#subdir(child, old, listings);
        listings = sub.listed;
        track(i, sub.node);
      } else if (child.node.type === 'file') {
        if (!(await this.#acquire())) break;
        track(i, this.#file(child, old, listedAsFile));
      } else
        track(
          i,
          this.#entry(child, old, () => {}),
        );
    }
    while (running.size > 0) await Promise.allSettled(running);
    // Stopped early: this walk failed, here or elsewhere; the first failure is what surfaces.
    if (failure || i < children.length) throw this.#d.scheduler.failure?.e ?? failure?.e;
    if (next !== done.length) throw new CairnError('INTERNAL', `folder saved ${next} of ${done.length} entries`);
  }

  /** A slot for one more file in flight; false once the walk failed (the slot is not taken). */
  async #acquire(): Promise<boolean> {
    if (!this.#slots.tryAcquire()) {
      try {
        await this.#slots.acquire(this.#d.signal);
      } catch (e) {
        this.#d.scheduler.fail(e); // cancelled
        return false;
      }
    }
    if (!this.#d.scheduler.failure) return true;
    this.#slots.release();
    return false;
  }

  /** A file of a listed folder, in one of the walk's slots; if `counted` as listed, it waits until a saver takes it. */
  #file(entry: SourceEntry, old: Node | undefined, counted: boolean): Promise<Node | undefined> {
    const scheduler = this.#d.scheduler;
    let waiting = counted;
    const started = () => {
      if (!waiting) return;
      waiting = false;
      scheduler.fileStarted();
    };
    return this.#entry(entry, old, started).finally(() => {
      started();
      this.#slots.release();
    });
  }

  /** A subdirectory: listed in its turn once `after` (the previous sibling's listing) is done, then walked. */
  #subdir(entry: SourceEntry, old: Node | undefined, after: Promise<unknown>): { listed: Promise<unknown>; node: Promise<Node | undefined> } {
    const d = this.#d;
    if (d.exclude?.(entry.path, entry)) return { listed: after, node: Promise.resolve(undefined) };
    const oldDir = old?.type === 'dir' ? old : undefined;
    const listing = after.then(() => {
      throwIfAborted(d.signal);
      return d.scheduler.turn(() => this.#list(entry, oldDir));
    });
    const node = listing.then((l) => l && this.#dir(entry, l[0], oldDir, l[1]));
    return { listed: listing.catch(() => {}), node };
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
