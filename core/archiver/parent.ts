// The parent snapshot a backup compares against (restic findParentSnapshot), and its trees.
// Unchanged files are reused from the parent without reading them (change-detection.ts); a
// parent tree that cannot be read only costs reading that folder's files again.

import { CairnError } from '../errors';
import { decodeTree, type Node, type Tree } from '../data';
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

export function chooseParent(repo: Repository, choice: ParentChoice, paths: string[], signal?: AbortSignal): Promise<SnapshotEntry | undefined> {
  if (choice.parent) return findSnapshot(repo, choice.parent, {}, signal);
  if (choice.force) return Promise.resolve(undefined);
  return findParent(repo, choice.hostname, paths, signal);
}

/** The tree `id`, or undefined when there is none or it cannot be read. */
export async function loadParentTree(repo: Pick<Repository, 'loadBlob'>, id: string | undefined, signal?: AbortSignal): Promise<Tree | undefined> {
  if (!id) return undefined;
  try {
    return decodeTree(await repo.loadBlob('tree', id, signal));
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    return undefined;
  }
}

/** A directory node with no metadata: the snapshot's root, or its stand-in in the parent. */
export function bareDir(subtree?: string): Node {
  return { name: '', type: 'dir', mtime: GoTime.zero, atime: GoTime.zero, ctime: GoTime.zero, uid: 0, gid: 0, content: null, subtree };
}
