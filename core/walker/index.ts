// Walking snapshot trees: depth-first in name order, yielding every node with its path.
// Used by ls, restore, check, stats, find and the app's browser (restic internal/walker).

import { CairnError } from '../errors';
import { decodeTree, type Node, type Tree } from '../data';
import { invalidNameError, nameProblem, partitionByName, type NameProblem } from '../data/node-name';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';

export interface WalkItem {
  /** Path components from the walk's root (["home", "u", "file.txt"]). */
  path: string[];
  node: Node;
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Return false to skip descending into a directory. */
  enter?: (item: WalkItem) => boolean;
  /** Called for trees that cannot be loaded; without it the walk throws. */
  onTreeError?: (path: string[], treeID: ID, e: unknown) => void;
  /**
   * Walks that turn names into paths (restore, ZIP, dump) never see a node whose name could
   * not be one path component inside its folder (core/data/node-name.ts): each is handed here
   * with its folder's path instead, and the walk goes on. Without it such a node ends the walk
   * with INVALID_NAME, unless `anyName` is set.
   */
  onInvalidName?: (dir: string[], node: Node, problem: NameProblem) => void;
  /** Yields every node whatever its name: for walks that write nothing (ls, stats, check). */
  anyName?: boolean;
}

/** The nodes of one tree this walk yields, in the tree's order. */
function yieldable(nodes: Node[], dir: string[], opts: WalkOptions): Node[] {
  if (opts.anyName) return nodes;
  const { valid, refused } = partitionByName(nodes);
  for (const { node, problem } of refused) {
    if (!opts.onInvalidName) throw invalidNameError(dir, node.name, problem);
    opts.onInvalidName(dir, node, problem);
  }
  return valid;
}

export async function loadTree(repo: Repository, id: ID, signal?: AbortSignal): Promise<Tree> {
  return parseTree(await repo.loadBlob('tree', id, signal), id);
}

/** Decodes tree `id`'s bytes; a malformed tree is BAD_TREE naming it. */
export function parseTree(bytes: Uint8Array, id: ID): Tree {
  try {
    return decodeTree(bytes);
  } catch (e) {
    throw new CairnError('BAD_TREE', `tree ${id.slice(0, 8)}: ${(e as Error).message}`, { cause: e, detail: { tree: id } });
  }
}

/**
 * `dir` and `name` in an array of exactly that length (a spread leaves room to grow, and a
 * restore keeps every file's path until it ends).
 */
function childPath(dir: string[], name: string): string[] {
  const path = new Array<string>(dir.length + 1);
  for (let i = 0; i < dir.length; i++) path[i] = dir[i]!;
  path[dir.length] = name;
  return path;
}

export async function* walk(repo: Repository, treeID: ID, opts: WalkOptions = {}, prefix: string[] = []): AsyncGenerator<WalkItem> {
  // One generator with a stack of open directories, not one generator per directory: each
  // item of a nested `yield*` passes through every level above it (a few promise turns each),
  // which for 50 000 small files cost more than decoding their trees.
  const open: { nodes: Node[]; at: number; path: string[] }[] = [];
  const enter = async (id: ID, path: string[]) => {
    try {
      open.push({ nodes: yieldable((await loadTree(repo, id, opts.signal)).nodes, path, opts), at: 0, path });
    } catch (e) {
      if (!opts.onTreeError || (e instanceof CairnError && (e.code === 'ABORTED' || e.code === 'INVALID_NAME'))) throw e;
      opts.onTreeError(path, id, e);
    }
  };
  await enter(treeID, prefix);
  while (open.length > 0) {
    const dir = open[open.length - 1]!;
    if (dir.at === dir.nodes.length) {
      open.pop();
      continue;
    }
    const node = dir.nodes[dir.at++]!;
    const item = { path: childPath(dir.path, node.name), node };
    yield item;
    if (node.type === 'dir' && node.subtree && (opts.enter?.(item) ?? true)) await enter(node.subtree, item.path);
  }
}

/**
 * Finds the node at `path` (components) below a tree; undefined if absent. A component that
 * could not be a path component never matches, and a repeated name matches its first node
 * (the one a restore writes).
 */
export async function lookupPath(repo: Repository, treeID: ID, path: string[], signal?: AbortSignal): Promise<Node | undefined> {
  let id: ID | undefined = treeID;
  let node: Node | undefined;
  for (const name of path) {
    if (!id || nameProblem(name)) return undefined;
    const tree = await loadTree(repo, id, signal);
    node = tree.nodes.find((n) => n.name === name);
    if (!node) return undefined;
    id = node.type === 'dir' ? node.subtree : undefined;
  }
  return node;
}

export function splitPath(p: string): string[] {
  return p.split('/').filter((c) => c !== '' && c !== '.');
}
