// Several items of one folder at once: one ZIP with each ticked item at its top level, or a
// restore of the ticked items (or the whole folder) into a picked folder, narrowed by restic's
// include/exclude patterns. The patterns match paths relative to the folder, as restic's
// `restore ID:folder --include …` does; items left unticked are excluded by their own names,
// so a user's includes narrow the selection instead of adding to it.

import { CairnError } from '../../core/errors';
import type { Node } from '../../core/data/node';
import { parsePattern, type Pattern } from '../../core/filter/pattern';
import { restore } from '../../core/restorer/restorer';
import { zipTree, type ZipRoot } from '../../core/restorer/zip-tree';
import type { ProgressSnapshot } from '../../core/progress';
import type { RestoreResultView } from '../api';
import type { RestorePatterns, SelectionRequest } from '../tools-api';
import { fsaRestoreTarget } from '../restore/fsa-target';
import { browserDecodePool } from '../pool/decode-pool';
import { isRemote } from '../location';
import { dirTree } from './browse';
import type { Producer } from './restore';
import type { Session } from './session';

/** A name as an anchored pattern that matches only itself (restic escapes with a backslash). */
export function literalPattern(name: string): Pattern {
  return { parts: [name.replace(/[*?[\\]/g, (c) => '\\' + c)], anchored: true };
}

/** The folder's nodes the request names, in the request's order; unknown names are refused. */
async function chosenNodes(s: Session, req: SelectionRequest): Promise<{ tree: string; all: Node[]; chosen: Node[] }> {
  const tree = await dirTree(s, req.snapshotId, req.dir);
  const all = (await s.tree(tree)).nodes;
  const names = [...new Set(req.names)];
  const chosen = names.map((name) => {
    const n = all.find((x) => x.name === name);
    if (!n) throw new CairnError('USAGE', `/${[...req.dir, name].join('/')} is not in this snapshot`);
    return n;
  });
  return { tree, all, chosen };
}

/** One ZIP of the chosen items (files and folders side by side); the folder's name names it. */
export async function selectionProducer(s: Session, req: SelectionRequest): Promise<Producer> {
  s.requireOnline('Restoring file contents');
  await s.repo.loadIndex();
  const { chosen } = await chosenNodes(s, req);
  if (chosen.length === 0) throw new CairnError('USAGE', 'no items were chosen');
  const roots: ZipRoot[] = chosen
    .filter((n) => n.type === 'file' || n.type === 'symlink' || (n.type === 'dir' && n.subtree))
    .map((n) => (n.type === 'dir' ? { kind: 'tree', tree: n.subtree!, name: n.name } : { kind: 'node', node: n }));
  const base = req.dir.at(-1) ?? `snapshot-${req.snapshotId.slice(0, 8)}`;
  return {
    filename: `${base} (${chosen.length} items).zip`,
    run: async (sink, signal, onProgress) => {
      const decoders = browserDecodePool();
      try {
        const r = await zipTree(s.repo, roots, sink, { signal, onProgress, decodePack: decoders.decodePack });
        return { files: r.files, dirs: r.dirs, bytes: r.bytes, errors: r.errors };
      } finally {
        await decoders.close();
      }
    },
  };
}

/** The chosen items (none = the whole folder) restored into `target`, filtered by `patterns`. */
export async function restoreSelection(
  s: Session,
  req: SelectionRequest,
  target: FileSystemDirectoryHandle,
  patterns: RestorePatterns,
  signal: AbortSignal,
  onProgress?: (p: ProgressSnapshot) => void,
): Promise<RestoreResultView> {
  s.requireOnline('Restoring file contents');
  const { tree, all, chosen } = await chosenNodes(s, req);
  const picked = new Set(chosen.map((n) => n.name));
  const unticked = chosen.length ? all.filter((n) => !picked.has(n.name)).map((n) => literalPattern(n.name)) : [];
  const typed = (list: string[] | undefined) =>
    (list ?? [])
      .map((p) => p.trim())
      .filter(Boolean)
      .map(parsePattern);
  const decoders = browserDecodePool();
  try {
    const r = await restore(s.repo, tree, fsaRestoreTarget(target), {
      signal,
      onProgress,
      concurrency: isRemote(s.loc) ? 4 : 2,
      readGroups: true,
      decodePack: decoders.decodePack,
      include: typed(patterns.include),
      // Unticked items last: a user's `!pattern` cannot bring one back.
      exclude: [...typed(patterns.exclude), ...unticked],
    });
    return { files: r.files, dirs: r.dirs, bytes: r.bytes, errors: r.errors };
  } finally {
    await decoders.close();
  }
}
