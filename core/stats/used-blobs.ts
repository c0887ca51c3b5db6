// restic FindUsedBlobs: every tree blob reachable from the given trees and every data blob
// of their files, each once. A tree already in the set is not loaded again, so a subtree
// shared by many snapshots costs one load.

import { throwIfAborted } from '../errors';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { loadTree } from '../walker';

export interface UsedBlobs {
  trees: Set<ID>;
  data: Set<ID>;
}

export async function collectUsedBlobs(
  repo: Repository,
  roots: ID[],
  used: UsedBlobs = { trees: new Set(), data: new Set() },
  signal?: AbortSignal,
): Promise<UsedBlobs> {
  const pending = [...roots];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (used.trees.has(id)) continue;
    throwIfAborted(signal);
    used.trees.add(id);
    for (const node of (await loadTree(repo, id, signal)).nodes) {
      if (node.type === 'file') for (const b of node.content ?? []) used.data.add(b);
      else if (node.type === 'dir' && node.subtree) pending.push(node.subtree);
    }
  }
  return used;
}
