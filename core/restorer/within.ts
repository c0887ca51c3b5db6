// A restore target seen from one of its folders: restoring a snapshot folder's own tree into
// `target/<name>/`, as `restic restore snapshot:folder` does into its target.

import type { RestoreTarget } from './target';

/** `target` with every path below `prefix`. */
export function within(target: RestoreTarget, prefix: string[]): RestoreTarget {
  const at = (p: string[]) => [...prefix, ...p];
  const t = target;
  return {
    mkdir: (p) => t.mkdir(at(p)),
    createFile: (p, size, opts) => t.createFile(at(p), size, opts),
    symlink: (p, link) => t.symlink(at(p), link),
    setMetadata: (p, node) => t.setMetadata(at(p), node),
    stat: t.stat && ((p) => t.stat!(at(p))),
    isNew: t.isNew && ((p) => t.isNew!(at(p))),
    openRead: t.openRead && ((p) => t.openRead!(at(p))),
    remove: t.remove && ((p, o) => t.remove!(at(p), o)),
    list: t.list && ((p) => t.list!(at(p))),
  };
}
