// Snapshots, as restic's checker loads them: every snapshot file decodes (a damaged one is
// named) and its root tree is indexed; structure.ts then checks every tree below the roots.

import { serializeError } from '../errors';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { named, type Report } from './problems';
import { checkTrees } from './structure';

export async function checkSnapshots(repo: Repository, problem: Report, signal?: AbortSignal): Promise<number> {
  const snapshots = await listSnapshots(repo, {
    signal,
    onError: (id, e) =>
      problem({ kind: 'snapshot', code: serializeError(e).code, snapshot: id, message: named(`snapshot ${id.slice(0, 8)}`, serializeError(e).message) }),
  });
  const roots: ID[] = [];
  for (const { id, snapshot } of snapshots) {
    if (repo.index.has('tree', snapshot.tree)) roots.push(snapshot.tree);
    else
      problem({
        kind: 'snapshot',
        code: 'BLOB_NOT_FOUND',
        snapshot: id,
        blob: snapshot.tree,
        message: `snapshot ${id.slice(0, 8)}: tree ${snapshot.tree.slice(0, 8)} not found in index`,
      });
  }
  await checkTrees(repo, roots, problem, signal);
  return snapshots.length;
}
