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

function sameNames(names: readonly string[], previous: readonly string[]): boolean {
  if (names.length !== previous.length) return false;
  const set = new Set(previous);
  return names.every((n) => set.has(n));
}

/**
 * `source` with each listed folder's time set as described above, before the archiver stores
 * the folder's node (it reads the node after listing it), whether the folder is listed whole
 * (readDir) or by names (readNames). Folders of the parent that carry the Unix epoch (older
 * Cairn versions stored that) count as having no time.
 */
export function withFolderTimes<S extends SourceFS>(source: S, now: GoTime, previous: PreviousFolders | undefined, excluded?: (path: string) => boolean): S {
  const lookup = (dir: SourceEntry, signal?: AbortSignal) => previous?.(dir.path, signal).catch(() => undefined);
  const setTime = (dir: SourceEntry, listed: readonly { name: string; path: string }[], prev: PreviousFolder | undefined) => {
    const names = listed.filter((e) => !excluded?.(e.path)).map((e) => e.name);
    const t = prev && prev.mtime.unixMillis() !== 0 && sameNames(names, prev.names) ? prev.mtime : now;
    dir.node.mtime = t;
    dir.node.atime = t;
    dir.node.ctime = t;
  };
  const { readNames } = source;
  return {
    ...source,
    async readDir(dir, onError, signal) {
      const [children, prev] = await Promise.all([source.readDir(dir, onError, signal), lookup(dir, signal)]);
      setTime(
        dir,
        children.map((e) => ({ name: e.node.name, path: e.path })),
        prev,
      );
      return children;
    },
    ...(readNames && {
      async readNames(dir: SourceEntry, signal?: AbortSignal) {
        const [names, prev] = await Promise.all([readNames.call(source, dir, signal), lookup(dir, signal)]);
        setTime(
          dir,
          names.map((name) => ({ name, path: `${dir.path}/${name}` })),
          prev,
        );
        return names;
      },
    }),
  };
}
