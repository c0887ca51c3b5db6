// Browsing snapshots: directory listings, name search across snapshots, a path's versions and
// the difference between two snapshots. Everything works from trees, which the session keeps
// decoded in memory and (for buckets) sealed in the offline cache.

import { CairnError, throwIfAborted } from '../../core/errors';
import type { Node } from '../../core/data/node';
import type { Tree } from '../../core/data';
import type { ID } from '../../core/id';
import type { DiffEntry, NodeView, SearchHit, VersionView } from '../api';
import type { Session } from './session';
import { byDirThenName, nodeView } from './views';
import { assertSafePath } from '../../core/data/node-name';
import { diffTrees } from '../../core/diff';
import { outlineOf } from './name-index';

/**
 * The node at `path` below a tree (undefined when absent). A name that could not be a path
 * component (a hostile tree's `..`, say) is refused with INVALID_NAME: it is listed, but nothing
 * is restored or downloaded from it. A repeated name resolves to its first node.
 */
async function nodeAt(s: Session, tree: ID, path: string[], signal?: AbortSignal): Promise<Node | undefined> {
  assertSafePath(path);
  let id: ID | undefined = tree;
  let node: Node | undefined;
  for (const name of path) {
    if (!id) return undefined;
    node = (await s.tree(id, signal)).nodes.find((n) => n.name === name);
    if (!node) return undefined;
    id = node.type === 'dir' ? node.subtree : undefined;
  }
  return node;
}

/** Resolves a path to a directory tree ID ([] = the snapshot root). */
export async function dirTree(s: Session, snapshotId: string, path: string[]): Promise<ID> {
  const sn = await s.snapshot(snapshotId);
  if (path.length === 0) return sn.snapshot.tree;
  const node = await nodeAt(s, sn.snapshot.tree, path);
  if (!node) throw new CairnError('NOT_FOUND', `/${path.join('/')} is not in snapshot ${sn.id.slice(0, 8)}`, { detail: { path: '/' + path.join('/') } });
  if (node.type !== 'dir' || !node.subtree) throw new CairnError('USAGE', `/${path.join('/')} is not a directory`);
  return node.subtree;
}

export async function findNode(s: Session, snapshotId: string, path: string[]): Promise<Node> {
  const sn = await s.snapshot(snapshotId);
  const node = path.length ? await nodeAt(s, sn.snapshot.tree, path) : undefined;
  if (!node) throw new CairnError('NOT_FOUND', `/${path.join('/')} is not in snapshot ${sn.id.slice(0, 8)}`, { detail: { path: '/' + path.join('/') } });
  return node;
}

export async function listDir(s: Session, snapshotId: string, path: string[]): Promise<NodeView[]> {
  const tree = await s.tree(await dirTree(s, snapshotId, path));
  return tree.nodes.map((n) => nodeView(n, [...path, n.name])).sort(byDirThenName);
}

/** How many trees a search loads ahead of its walk (their reads and decryption overlap). */
const SEARCH_AHEAD = 32;

/**
 * Trees for a depth-first walk, loaded ahead: `ahead()` starts loads (at most `limit` waiting
 * at once), `take()` hands each out once (or loads it now), `drop()` forgets one the walk
 * skips. The walk sees the same trees in the same order as without it.
 */
function treesAhead(s: Session, limit: number, signal?: AbortSignal) {
  const waiting = new Map<ID, Promise<Tree>>();
  return {
    ahead(ids: ID[]): void {
      for (const id of ids) {
        if (waiting.size >= limit) return;
        if (waiting.has(id)) continue;
        const t = s.tree(id, signal);
        t.catch(() => {}); // seen by the take() that hands it out
        waiting.set(id, t);
      }
    },
    take(id: ID): Promise<Tree> {
      const t = waiting.get(id);
      waiting.delete(id);
      return t ?? s.tree(id, signal);
    },
    drop: (id: ID) => void waiting.delete(id),
  };
}

/** The positions in `names` that contain `q` (lower-cased), each list matched once however many folders share it. */
function matcher(q: string): (names: readonly string[]) => number[] {
  const memo = new WeakMap<readonly string[], number[]>();
  return (names) => {
    let at = memo.get(names);
    if (!at) {
      at = [];
      for (let i = 0; i < names.length; i++) if (names[i]!.toLowerCase().includes(q)) at.push(i);
      memo.set(names, at);
    }
    return at;
  };
}

/**
 * Names containing `query` (case-insensitive), newest snapshot first, each snapshot depth-first
 * in tree order. A subtree already searched at the same path in a newer snapshot holds the same
 * hits and is skipped. A folder the offline cache keeps an outline of (./name-index.ts) is
 * searched from it, and its tree is read only when it holds a hit; the others are read ahead.
 */
export async function search(s: Session, query: string, limit = 200, signal?: AbortSignal): Promise<SearchHit[]> {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  // From the outlines a search needs no index: a background index load waits until it ends.
  return s.fromCache(() => walkForNames(s, q, limit, signal));
}

async function walkForNames(s: Session, q: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  const keyOf = (tree: ID, path: string[]) => `${tree}\0${path.join('/')}`;
  const outlines = await s.outlines();
  const matching = matcher(q);
  const trees = treesAhead(s, SEARCH_AHEAD, signal);
  const visit = async (snapshotId: string, tree: ID, path: string[]): Promise<void> => {
    const key = keyOf(tree, path);
    if (seen.has(key) || hits.length >= limit) return void trees.drop(tree);
    seen.add(key);
    throwIfAborted(signal);
    const read = outlines.has(tree) ? undefined : await trees.take(tree);
    const { names, dirs } = outlines.get(tree) ?? outlineOf(read!);
    // Read ahead: the subfolders without an outline, and those whose outline holds a hit.
    const needed = (sub: ID) => !outlines.has(sub) || matching(outlines.get(sub)!.names).length > 0;
    trees.ahead(dirs.filter(([pos, sub]) => needed(sub) && !seen.has(keyOf(sub, [...path, names[pos]!]))).map(([, sub]) => sub));
    const at = matching(names);
    let nodes = read?.nodes;
    for (let h = 0, d = 0; h < at.length || d < dirs.length;) {
      if (hits.length >= limit) return;
      const pos = Math.min(at[h] ?? Infinity, dirs[d]?.[0] ?? Infinity);
      const p = [...path, names[pos]!];
      if (at[h] === pos) {
        nodes ??= (await trees.take(tree)).nodes;
        hits.push({ snapshotId, node: nodeView(nodes[pos]!, p) });
        h++;
      }
      if (dirs[d]?.[0] === pos) await visit(snapshotId, dirs[d++]![1], p);
    }
  };
  const all = await s.snapshots(signal);
  for (let i = all.length - 1; i >= 0 && hits.length < limit; i--) await visit(all[i]!.id, all[i]!.snapshot.tree, []);
  return hits;
}

export async function versions(s: Session, path: string[], signal?: AbortSignal): Promise<VersionView[]> {
  const out: VersionView[] = [];
  for (const e of await s.snapshots(signal)) {
    const node = path.length ? await nodeAt(s, e.snapshot.tree, path, signal).catch(() => undefined) : undefined;
    if (node) out.push({ snapshotId: e.id, time: e.snapshot.time.format(), node: nodeView(node, path) });
  }
  return out;
}

/**
 * What changed from snapshot `a` to snapshot `b`: `cairn diff`'s walk (core/diff, restic's
 * Comparer) over the session's trees. `+` is added, `-` removed, and the rest (`M`, `M?`, `T`)
 * modified: a file's content or a node's type, not metadata alone (restic diff without
 * --metadata). Identical subtrees are skipped, not walked.
 */
export async function diff(s: Session, a: string, b: string, signal?: AbortSignal): Promise<DiffEntry[]> {
  const [sa, sb] = [await s.snapshot(a), await s.snapshot(b)];
  const out: DiffEntry[] = [];
  await diffTrees(s.repo, sa.snapshot.tree, sb.snapshot.tree, {
    blobStats: false,
    loadTree: (id, sig) => s.tree(id, sig),
    signal,
    onChange: (c) => out.push({ path: [...c.names], change: c.modifier === '+' ? 'added' : c.modifier === '-' ? 'removed' : 'modified', type: c.type }),
  });
  return out;
}
