// Which files a damaged or missing data blob belongs to: one more walk of every snapshot,
// made only when check found such blobs (so a healthy repository pays nothing), keeping a few
// paths per blob — what a user needs to decide what to back up again.

import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { walk } from '../walker';

/** Paths listed per blob at most. */
const PER_BLOB = 5;

/** For each blob in `blobs`: up to five "path (snapshot 1234abcd)" entries. */
export async function filesUsing(repo: Repository, blobs: ReadonlySet<ID>, signal?: AbortSignal): Promise<Map<ID, string[]>> {
  const found = new Map<ID, string[]>();
  if (blobs.size === 0) return found;
  for (const { id, snapshot } of await listSnapshots(repo, { signal, onError: () => {} })) {
    const walking = walk(repo, snapshot.tree, { signal, anyName: true, onTreeError: () => {} });
    for await (const { path, node } of walking) {
      if (node.type !== 'file' || !node.content) continue;
      for (const b of node.content) {
        if (!blobs.has(b)) continue;
        const list = found.get(b) ?? [];
        const entry = `/${path.join('/')} (snapshot ${id.slice(0, 8)})`;
        if (list.length < PER_BLOB && !list.includes(entry)) list.push(entry);
        found.set(b, list);
      }
    }
  }
  return found;
}
