// Times for folders, which browsers do not give. A folder gets the time of the backup that
// first saw it holding what it holds now: the parent snapshot's time for it when its entries
// have the same names as there (as a file system leaves a folder's time alone until an entry is
// added, removed or renamed), else this backup's time. An unchanged folder thus keeps its tree
// blob from one backup to the next (no new trees, "unmodified" in the summary, search and diff
// see it as the same), and none shows 1970-01-01.

import type { SourceEntry, SourceFS } from '../../core/archiver/source';
import type { GoTime } from '../../core/data/go-time';

/** A folder as the parent snapshot has it: its time and the names in it. */
export interface PreviousFolder {
  mtime: GoTime;
  names: readonly string[];
}

/** Looks a folder up in the parent snapshot by its source path ("/Documents/sub"). */
export type PreviousFolders = (path: string, signal?: AbortSignal) => Promise<PreviousFolder | undefined>;

function sameNames(listed: readonly SourceEntry[], previous: readonly string[], excluded?: (path: string) => boolean): boolean {
  const names = listed.filter((e) => !excluded?.(e.path)).map((e) => e.node.name);
  if (names.length !== previous.length) return false;
  const set = new Set(previous);
  return names.every((n) => set.has(n));
}

/**
 * `source` with each listed folder's time set as described above, before the archiver stores
 * the folder's node (it reads the node after listing it). Folders of the parent that carry
 * the Unix epoch (older Cairn versions stored that) count as having no time.
 */
export function withFolderTimes<S extends SourceFS>(source: S, now: GoTime, previous: PreviousFolders | undefined, excluded?: (path: string) => boolean): S {
  return {
    ...source,
    async readDir(dir, onError, signal) {
      const [children, prev] = await Promise.all([source.readDir(dir, onError, signal), previous?.(dir.path, signal).catch(() => undefined)]);
      const keep = prev && prev.mtime.unixMillis() !== 0 && sameNames(children, prev.names, excluded);
      const t = keep ? prev.mtime : now;
      dir.node.mtime = t;
      dir.node.atime = t;
      dir.node.ctime = t;
      return children;
    },
  };
}
