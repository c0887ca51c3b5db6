// Snapshots and their trees, as restic's checker walks them: every snapshot loads, its tree and
// every tree below it is indexed and decodes, every file's data blobs are indexed, and nodes
// are well-formed (the checks restic makes). Each tree is checked once, however many snapshots
// share it; the walk keeps its own stack, so trees nested ten thousand deep cost no call depth.

import { serializeError } from '../errors';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { loadTree } from '../walker';
import { named, type Report } from './problems';

export async function checkSnapshots(repo: Repository, problem: Report, signal?: AbortSignal): Promise<number> {
  const snapshots = await listSnapshots(repo, {
    signal,
    onError: (id, e) =>
      problem({ kind: 'snapshot', code: serializeError(e).code, snapshot: id, message: named(`snapshot ${id.slice(0, 8)}`, serializeError(e).message) }),
  });
  const seen = new Set<ID>();
  for (const { id, snapshot } of snapshots) {
    if (!repo.index.has('tree', snapshot.tree)) {
      problem({
        kind: 'snapshot',
        code: 'BLOB_NOT_FOUND',
        snapshot: id,
        blob: snapshot.tree,
        message: `snapshot ${id.slice(0, 8)}: tree ${snapshot.tree.slice(0, 8)} not found in index`,
      });
      continue;
    }
    await checkTrees(repo, snapshot.tree, seen, problem, signal);
  }
  return snapshots.length;
}

/** Checks `root` and every tree below it not in `seen`. */
async function checkTrees(repo: Repository, root: ID, seen: Set<ID>, problem: Report, signal?: AbortSignal): Promise<void> {
  const stack: { id: ID; where: string }[] = [{ id: root, where: '' }];
  while (stack.length > 0) {
    const { id, where } = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    let tree;
    try {
      tree = await loadTree(repo, id, signal);
    } catch (e) {
      const s = serializeError(e);
      if (s.code === 'ABORTED') throw e;
      problem({ kind: 'tree', code: s.code, blob: id, message: `tree ${id.slice(0, 8)} (${where || '/'}): ${s.message.replace(/^tree [0-9a-f]{8}: /, '')}` });
      continue;
    }
    const subtrees: { id: ID; where: string }[] = [];
    for (const node of tree.nodes) {
      const at = `${where}/${node.name}`;
      // As restic's checker: the one name check it makes (restore refuses more, node-name.ts).
      if (node.name === '') problem({ kind: 'tree', code: 'INVALID_NAME', blob: id, message: `tree ${id.slice(0, 8)}: node with empty name` });
      if (node.type === 'file') {
        if (!node.content)
          problem({ kind: 'tree', code: 'BAD_TREE', blob: id, message: `tree ${id.slice(0, 8)}: file ${JSON.stringify(node.name)} has nil blob list` });
        for (const b of node.content ?? []) {
          if (!repo.index.has('data', b))
            problem({
              kind: 'blob',
              code: 'BLOB_NOT_FOUND',
              blob: b,
              message: `tree ${id.slice(0, 8)}: file ${JSON.stringify(at)} blob ${b.slice(0, 8)} not found in index`,
            });
        }
      } else if (node.type === 'dir') {
        if (!node.subtree)
          problem({ kind: 'tree', code: 'BAD_TREE', blob: id, message: `tree ${id.slice(0, 8)}: dir ${JSON.stringify(node.name)} subtree id is null` });
        else subtrees.push({ id: node.subtree, where: at });
      }
    }
    // Depth first in name order, as before: the stack takes the last sub-tree first.
    for (let i = subtrees.length - 1; i >= 0; i--) stack.push(subtrees[i]!);
  }
}
