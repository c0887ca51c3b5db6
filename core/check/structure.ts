// The structure part of check (restic Checker.Structure): every tree reachable from the
// snapshots loaded once, and every node checked against the index — file contents present,
// directories with a subtree, no empty names. Trees are loaded a level at a time, several at
// once, so a remote repository is not walked one request after another.

import { serializeError } from '../errors';
import type { ID } from '../id';
import type { Node } from '../data';
import { mapLimit } from '../concurrency/concurrency';
import type { Repository } from '../repository/repository';
import { loadTree } from '../walker';
import type { Report as ProblemSink } from './problems';

/** Trees loaded at once. */
const TREE_LOADS = 8;

interface Pending {
  id: ID;
  /** The tree's path from the snapshot root, for messages ("" for a root). */
  where: string;
}

/** Checks the trees below `roots` (each tree once, however many snapshots share it). */
export async function checkTrees(repo: Repository, roots: ID[], problem: ProblemSink, signal?: AbortSignal): Promise<void> {
  const seen = new Set<ID>();
  let level: Pending[] = [];
  for (const id of roots) {
    if (seen.has(id)) continue;
    seen.add(id);
    level.push({ id, where: '' });
  }
  while (level.length) {
    const next: Pending[] = [];
    await mapLimit(level, TREE_LOADS, async ({ id, where }) => {
      let nodes: Node[];
      try {
        nodes = (await loadTree(repo, id, signal)).nodes;
      } catch (e) {
        const s = serializeError(e);
        if (s.code === 'ABORTED') throw e;
        problem({ kind: 'tree', code: s.code, blob: id, message: `tree ${id.slice(0, 8)} (${where || '/'}): ${s.message.replace(/^tree [0-9a-f]{8}: /, '')}` });
        return;
      }
      for (const node of nodes) {
        const sub = checkNode(repo, id, where, node, problem);
        if (sub && !seen.has(sub)) {
          seen.add(sub);
          next.push({ id: sub, where: `${where}/${node.name}` });
        }
      }
    });
    level = next;
  }
}

/** One node's checks; returns the subtree to visit, if any. */
function checkNode(repo: Repository, tree: ID, where: string, node: Node, problem: ProblemSink): ID | undefined {
  const t = tree.slice(0, 8);
  // As restic's checker: the one name check it makes (restore refuses more, node-name.ts).
  if (node.name === '') problem({ kind: 'tree', code: 'INVALID_NAME', blob: tree, message: `tree ${t}: node with empty name` });
  if (node.type === 'file') {
    if (!node.content) problem({ kind: 'tree', code: 'BAD_TREE', blob: tree, message: `tree ${t}: file ${JSON.stringify(node.name)} has nil blob list` });
    for (const b of node.content ?? []) {
      if (!repo.index.has('data', b))
        problem({
          kind: 'blob',
          code: 'BLOB_NOT_FOUND',
          blob: b,
          message: `tree ${t}: file ${JSON.stringify(`${where}/${node.name}`)} blob ${b.slice(0, 8)} not found in index`,
        });
    }
    return undefined;
  }
  if (node.type !== 'dir') return undefined;
  if (!node.subtree) problem({ kind: 'tree', code: 'BAD_TREE', blob: tree, message: `tree ${t}: dir ${JSON.stringify(node.name)} subtree id is null` });
  return node.subtree;
}
