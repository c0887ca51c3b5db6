// What a copy has to transfer for one snapshot (restic cmd_copy.go copyTree): every tree below
// its root that this copy has not walked yet, and every blob those trees reference that the
// target does not have, grouped by the source pack that holds it.

import { CairnError } from '../errors';
import type { ID } from '../id';
import type { PackedBlob, BlobType } from '../pack/header';
import { mapLimit } from '../concurrency/concurrency';
import type { BlobUploader } from '../repository/blob-uploader';
import type { Repository } from '../repository/repository';
import { loadTree } from '../walker';

export interface CopyPlan {
  /** Source pack → the blobs to copy from it. */
  packs: Map<ID, PackedBlob[]>;
  blobs: number;
  /** Sealed bytes of those blobs in the source. */
  bytes: number;
}

/** Trees loaded at once while walking. */
const TREE_LOADS = 8;

export async function planCopy(src: Repository, target: BlobUploader, visitedTrees: Set<ID>, root: ID, signal?: AbortSignal): Promise<CopyPlan> {
  const plan: CopyPlan = { packs: new Map(), blobs: 0, bytes: 0 };
  const queued = new Set<string>();
  const want = (type: BlobType, id: ID) => {
    const key = type[0] + id;
    if (queued.has(key) || target.has(type, id)) return;
    queued.add(key);
    const loc = src.index.lookup(type, id);
    if (!loc) throw new CairnError('BLOB_NOT_FOUND', `${type} blob ${id.slice(0, 8)} is not in the source repository's index`, { detail: { blob: id, type } });
    const list = plan.packs.get(loc.packID) ?? [];
    if (!list.length) plan.packs.set(loc.packID, list);
    list.push({ type, id, offset: loc.offset, length: loc.length, uncompressedLength: loc.uncompressedLength });
    plan.blobs++;
    plan.bytes += loc.length;
  };
  let level = visitedTrees.has(root) ? [] : [root];
  visitedTrees.add(root);
  while (level.length) {
    const next: ID[] = [];
    await mapLimit(level, TREE_LOADS, async (id) => {
      const tree = await loadTree(src, id, signal);
      want('tree', id);
      for (const node of tree.nodes) {
        for (const b of node.content ?? []) want('data', b);
        if (node.type === 'dir' && node.subtree && !visitedTrees.has(node.subtree)) {
          visitedTrees.add(node.subtree);
          next.push(node.subtree);
        }
      }
    });
    level = next;
  }
  return plan;
}
