// restic's Comparer: both trees are walked together by name. A name on one side only is `+`
// or `-` with everything below it; on both sides, a type change is `T`, a file whose content
// list differs is `M` (`M?` when nothing else differs: the same metadata with new content
// means bitrot), and with `metadata` any other difference is `U`. Identical subtrees are not
// compared, only collected as common blobs. Blob statistics: the blobs referenced by nodes
// seen on each side, minus those both sides or an identical subtree use. The CLI's `diff` and
// the app's snapshot comparison (workers/engine/browse.ts) both use this walk.

import { throwIfAborted } from '../errors';
import type { Node } from '../data/node';
import type { Tree } from '../data/tree';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { loadTree } from '../walker';
import { compareBytes, utf8Encode } from '../data/utf8';

export interface DiffChange {
  /** Slash-separated from the compared roots, folders ending in `/`. */
  path: string;
  /** The same path as names, from the compared roots (a name may hold a `/` in a hostile tree). */
  names: readonly string[];
  /** The node's type after the change (before it, for a removed node). */
  type: Node['type'];
  modifier: string;
}

export interface DiffSide {
  files: number;
  dirs: number;
  others: number;
  dataBlobs: number;
  treeBlobs: number;
  bytes: number;
}

export interface DiffStats {
  changedFiles: number;
  added: DiffSide;
  removed: DiffSide;
}

export interface DiffOptions {
  metadata?: boolean;
  /**
   * Count the blobs only one side uses (default true). Without, identical subtrees are skipped
   * instead of walked for their blobs, and the stats' blob counts and bytes stay 0.
   */
  blobStats?: boolean;
  /** Where decoded trees come from (default: the repository, each time). */
  loadTree?: (id: ID, signal?: AbortSignal) => Promise<Tree>;
  signal?: AbortSignal;
  onChange: (c: DiffChange) => void;
  /** A subtree that cannot be loaded below an added/removed/common folder: reported, the diff goes on. */
  onError?: (message: string) => void;
}

type BlobSet = Set<string>;
const side = (): DiffSide => ({ files: 0, dirs: 0, others: 0, dataBlobs: 0, treeBlobs: 0, bytes: 0 });

function addBlobs(set: BlobSet, node: Node | undefined): void {
  if (!node) return;
  if (node.type === 'file') for (const b of node.content ?? []) set.add('d' + b);
  else if (node.type === 'dir' && node.subtree) set.add('t' + node.subtree);
}

function count(s: DiffSide, node: Node): void {
  if (node.type === 'file') s.files++;
  else if (node.type === 'dir') s.dirs++;
  else s.others++;
}

const sameList = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((x, i) => x === b[i]);

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return (a?.length ?? 0) === (b?.length ?? 0);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameXattrs(a: Node, b: Node): boolean {
  const x = a.extendedAttributes ?? [];
  const y = b.extendedAttributes ?? [];
  if (x.length !== y.length) return false;
  const m = new Map(x.map((e) => [e.name, e.value]));
  return y.every((e) => m.has(e.name) && sameBytes(m.get(e.name)!, e.value));
}

function sameGeneric(a: Node, b: Node): boolean {
  const x = a.genericAttributes ?? new Map();
  const y = b.genericAttributes ?? new Map();
  if (x.size !== y.size) return false;
  for (const [k, v] of x) if (!y.has(k) || JSON.stringify(y.get(k)) !== JSON.stringify(v)) return false;
  return true;
}

/** restic Node.Equals; `ignoreContent` compares as if both contents were nil. */
export function nodesEqual(a: Node, b: Node, ignoreContent = false): boolean {
  return (
    a.name === b.name &&
    a.type === b.type &&
    (a.mode ?? 0) === (b.mode ?? 0) &&
    a.mtime.equal(b.mtime) &&
    a.atime.equal(b.atime) &&
    a.ctime.equal(b.ctime) &&
    a.uid === b.uid &&
    a.gid === b.gid &&
    (a.user ?? '') === (b.user ?? '') &&
    (a.group ?? '') === (b.group ?? '') &&
    BigInt(a.inode ?? 0) === BigInt(b.inode ?? 0) &&
    BigInt(a.deviceId ?? 0) === BigInt(b.deviceId ?? 0) &&
    (a.size ?? 0) === (b.size ?? 0) &&
    (a.links ?? 0) === (b.links ?? 0) &&
    (a.linkTarget ?? '') === (b.linkTarget ?? '') &&
    BigInt(a.device ?? 0) === BigInt(b.device ?? 0) &&
    (ignoreContent || sameList(a.content, b.content)) &&
    sameXattrs(a, b) &&
    sameGeneric(a, b) &&
    (a.subtree ?? '') === (b.subtree ?? '') &&
    (a.error ?? '') === (b.error ?? '')
  );
}

class Comparer {
  readonly before: BlobSet = new Set();
  readonly after: BlobSet = new Set();
  readonly common: BlobSet = new Set();
  readonly stats: DiffStats = { changedFiles: 0, added: side(), removed: side() };

  constructor(
    readonly repo: Repository,
    readonly opts: DiffOptions,
  ) {}

  #load(id: ID): Promise<Tree> {
    return this.opts.loadTree ? this.opts.loadTree(id, this.opts.signal) : loadTree(this.repo, id, this.opts.signal);
  }

  /** Runs `fn` on a subtree; a failure there is reported and the rest of the diff goes on. */
  async #guarded(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      throwIfAborted(this.opts.signal);
      if (!this.opts.onError) throw e;
      this.opts.onError(`error: ${(e as Error).message}`);
    }
  }

  async printDir(mode: '+' | '-', s: DiffSide, blobs: BlobSet, at: Place, id: ID): Promise<void> {
    for (const node of (await this.#load(id)).nodes) {
      throwIfAborted(this.opts.signal);
      const here = below(at, node);
      this.opts.onChange({ path: here.path, names: here.names, type: node.type, modifier: mode });
      count(s, node);
      addBlobs(blobs, node);
      if (node.type === 'dir' && node.subtree) await this.#guarded(() => this.printDir(mode, s, blobs, here, node.subtree!));
    }
  }

  async collectDir(id: ID): Promise<void> {
    if (this.opts.blobStats === false) return;
    for (const node of (await this.#load(id)).nodes) {
      throwIfAborted(this.opts.signal);
      addBlobs(this.common, node);
      if (node.type === 'dir' && node.subtree) await this.#guarded(() => this.collectDir(node.subtree!));
    }
  }

  async diffTree(at: Place, id1: ID, id2: ID): Promise<void> {
    const t1 = new Map((await this.#load(id1)).nodes.map((n) => [n.name, n]));
    const t2 = new Map((await this.#load(id2)).nodes.map((n) => [n.name, n]));
    const names = [...new Set([...t1.keys(), ...t2.keys()])].sort(byBytes);
    for (const name of names) {
      throwIfAborted(this.opts.signal);
      const n1 = t1.get(name);
      const n2 = t2.get(name);
      addBlobs(this.before, n1);
      addBlobs(this.after, n2);
      if (n1 && n2) await this.both(at, n1, n2);
      else if (n1) await this.oneSide('-', at, n1, this.stats.removed, this.before);
      else await this.oneSide('+', at, n2!, this.stats.added, this.after);
    }
  }

  async both(at: Place, n1: Node, n2: Node): Promise<void> {
    let mod = n1.type !== n2.type ? 'T' : '';
    const here = below(at, n2);
    if (n1.type === 'file' && n2.type === 'file' && !sameList(n1.content ?? [], n2.content ?? [])) {
      mod += 'M';
      this.stats.changedFiles++;
      if (nodesEqual(n1, n2, true)) mod += '?';
    } else if (this.opts.metadata && !nodesEqual(n1, n2)) mod += 'U';
    if (mod) this.opts.onChange({ path: here.path, names: here.names, type: n2.type, modifier: mod });
    if (n1.type === 'dir' && n2.type === 'dir' && n1.subtree && n2.subtree) {
      const [a, b] = [n1.subtree, n2.subtree];
      await this.#guarded(() => (a === b ? this.collectDir(a) : this.diffTree(here, a, b)));
    }
  }

  async oneSide(mode: '+' | '-', at: Place, node: Node, s: DiffSide, blobs: BlobSet): Promise<void> {
    const here = below(at, node);
    this.opts.onChange({ path: here.path, names: here.names, type: node.type, modifier: mode });
    count(s, node);
    if (node.type === 'dir' && node.subtree) await this.#guarded(() => this.printDir(mode, s, blobs, here, node.subtree!));
  }

  /** Blobs of one side that the other side and the common subtrees do not use. */
  tally(mine: BlobSet, theirs: BlobSet, s: DiffSide): void {
    if (this.opts.blobStats === false) return;
    for (const k of mine) {
      if (theirs.has(k) || this.common.has(k)) continue;
      const type = k[0] === 't' ? 'tree' : 'data';
      if (type === 'tree') s.treeBlobs++;
      else s.dataBlobs++;
      const size = this.repo.index.plainSize(type, k.slice(1));
      if (size === undefined) this.opts.onError?.(`unable to find blob size for ${type}/${k.slice(1, 9)}`);
      else s.bytes += size;
    }
  }
}

/** Where the walk is: restic's printed path (folders end in `/`) and the names leading there. */
interface Place {
  path: string;
  names: readonly string[];
}

const below = (at: Place, node: Node): Place => ({ path: at.path + node.name + (node.type === 'dir' ? '/' : ''), names: [...at.names, node.name] });

/** restic orders names by their bytes (UTF-16 order differs above U+FFFF). */
const byBytes = (a: string, b: string) => compareBytes(utf8Encode(a), utf8Encode(b));

/** Compares the trees `tree1` (before) and `tree2` (after), reporting each change in restic's order. */
export async function diffTrees(repo: Repository, tree1: ID, tree2: ID, opts: DiffOptions): Promise<DiffStats> {
  const c = new Comparer(repo, opts);
  c.before.add('t' + tree1);
  c.after.add('t' + tree2);
  await c.diffTree({ path: '/', names: [] }, tree1, tree2);
  c.tally(c.before, c.after, c.stats.removed);
  c.tally(c.after, c.before, c.stats.added);
  return c.stats;
}
