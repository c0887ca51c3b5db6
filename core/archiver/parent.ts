// The parent snapshot a backup compares against (restic findParentSnapshot), and its trees.
// Unchanged files are reused from the parent without reading them (change-detection.ts). A
// parent tree that cannot be read costs reading that folder's files again and is reported, in
// restic's words (archiver.go wrapLoadTreeError); so is a snapshot file that cannot be read
// while looking for the parent, which is then chosen among the readable ones.

import { CairnError, serializeError } from '../errors';
import { decodeTree, type Node, type Tree } from '../data';
import { byteOrderKey } from '../data/utf8';
import { GoTime } from '../data/go-time';
import type { Repository } from '../repository/repository';
import { findParent, findSnapshot, type SnapshotEntry } from '../repository/snapshots';

export interface ParentChoice {
  hostname: string;
  /** Use this snapshot instead of the newest with the same host and paths. */
  parent?: string;
  /** No parent at all (unless one is named). */
  force?: boolean;
}

/** Told of what could not be read of the parent (a snapshot file, a tree): the backup goes on. */
export type ParentErrorHandler = (e: CairnError) => void;

/**
 * The named parent (an error if it cannot be read, as in restic), none with `force`, else the
 * newest readable snapshot of this host and paths. An unreadable snapshot file is reported
 * through `onError`: restic stops the backup there ("Error loading snapshot"); any readable
 * snapshot is as good a parent, so one damaged file does not force every backup to read all.
 */
export function chooseParent(
  repo: Repository,
  choice: ParentChoice,
  paths: string[],
  signal?: AbortSignal,
  onError: ParentErrorHandler = () => {},
): Promise<SnapshotEntry | undefined> {
  if (choice.parent) return findSnapshot(repo, choice.parent, {}, signal);
  if (choice.force) return Promise.resolve(undefined);
  return findParent(repo, choice.hostname, paths, signal, (id, e) => onError(snapshotError(id, e)));
}

function snapshotError(id: string, e: unknown): CairnError {
  const s = serializeError(e);
  const name = `snapshot ${id.slice(0, 8)}`;
  const reason = s.message.startsWith(`${name}: `) ? s.message.slice(name.length + 2) : s.message;
  return new CairnError(s.code, `could not load ${name}: ${reason}`, { cause: e, detail: { snapshot: id } });
}

/** The tree `id`, or undefined when there is none or it cannot be read (then told to `onError`). */
export async function loadParentTree(
  repo: Pick<Repository, 'loadBlob'>,
  id: string | undefined,
  signal?: AbortSignal,
  onError: ParentErrorHandler = () => {},
): Promise<Tree | undefined> {
  if (!id) return undefined;
  try {
    return decodeTree(await repo.loadBlob('tree', id, signal));
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    onError(treeError(id, e));
    return undefined;
  }
}

/** restic's words for a parent tree it cannot load (archiver.go wrapLoadTreeError). */
function treeError(id: string, e: unknown): CairnError {
  const s = serializeError(e);
  const message =
    s.code === 'BLOB_NOT_FOUND'
      ? `tree ${id} is not known; the repository could be damaged, run \`repair index\` to try to repair it`
      : `tree ${id} could not be loaded; the repository could be damaged: ${s.message}`;
  return new CairnError(s.code, message, { cause: e, detail: { tree: id } });
}

/** A directory node with no metadata: the snapshot's root, or its stand-in in the parent. */
export function bareDir(subtree?: string): Node {
  return { name: '', type: 'dir', mtime: GoTime.zero, atime: GoTime.zero, ctime: GoTime.zero, uid: 0, gid: 0, content: null, subtree };
}

/**
 * A parent tree's nodes, looked up by the entries of the same folder in name order (a merge:
 * restic writes trees in that order). Each node is let go once the lookups have passed it, so
 * the parent's folder shrinks as the new one is saved. A tree not in order (not restic's) is
 * looked up by name instead.
 */
export class ParentNodes {
  readonly #nodes: (Node | undefined)[];
  readonly #byName: Map<string, Node> | undefined;
  #next = 0;
  #nextKey: string | undefined;

  constructor(tree: Tree | undefined) {
    const nodes = tree?.nodes ?? [];
    this.#nodes = nodes;
    if (!inNameOrder(nodes)) this.#byName = new Map(nodes.map((n) => [n.name, n]));
  }

  /** The parent's node of the same name, if any; names must come in increasing byte order. */
  take(entry: Pick<Node, 'name' | 'rawName'>): Node | undefined {
    if (this.#byName) return this.#byName.get(entry.name);
    const key = byteOrderKey(entry.name, entry.rawName);
    const nodes = this.#nodes;
    while (this.#next < nodes.length) {
      const n = nodes[this.#next]!;
      this.#nextKey ??= byteOrderKey(n.name, n.rawName);
      if (this.#nextKey > key) return undefined;
      nodes[this.#next++] = undefined;
      const found = this.#nextKey === key;
      this.#nextKey = undefined;
      if (found) return n;
    }
    return undefined;
  }
}

function inNameOrder(nodes: readonly Node[]): boolean {
  let last: string | undefined;
  for (const n of nodes) {
    const key = byteOrderKey(n.name, n.rawName);
    if (last !== undefined && !(last < key)) return false;
    last = key;
  }
  return true;
}
