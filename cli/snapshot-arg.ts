// restic's `snapshotID[:subfolder]` argument (0.17+): a snapshot reference, optionally
// followed by a folder inside it whose tree the command works on.

import { CairnError } from '../core/errors';
import type { ID } from '../core/id';
import type { Repository } from '../core/repository/repository';
import { findSnapshot, type SnapshotEntry, type SnapshotFilter } from '../core/repository/snapshots';
import { lookupPath, splitPath } from '../core/walker';

export interface ResolvedSnapshot extends SnapshotEntry {
  /** The tree the argument names: the snapshot's root or its subfolder's. */
  tree: ID;
  subfolder: string[];
}

export async function resolveSnapshotArg(repo: Repository, arg: string, filter: SnapshotFilter = {}, signal?: AbortSignal): Promise<ResolvedSnapshot> {
  const colon = arg.indexOf(':');
  const ref = colon >= 0 ? arg.slice(0, colon) : arg;
  const subfolder = colon >= 0 ? splitPath(arg.slice(colon + 1)) : [];
  const e = await findSnapshot(repo, ref, filter, signal);
  if (subfolder.length === 0) return { ...e, tree: e.snapshot.tree, subfolder };
  const node = await lookupPath(repo, e.snapshot.tree, subfolder, signal);
  if (!node) throw new CairnError('NOT_FOUND', `path /${subfolder.join('/')} not found in snapshot ${e.id.slice(0, 8)}`);
  if (node.type !== 'dir' || !node.subtree) throw new CairnError('USAGE', `path /${subfolder.join('/')} is not a directory`);
  return { ...e, tree: node.subtree, subfolder };
}
