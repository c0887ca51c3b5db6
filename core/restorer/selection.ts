// Which entries of a snapshot a restore takes: restic's SelectFilter (cmd/restic/cmd_restore.go)
// over include/exclude patterns (core/filter). A path is the walk path after `pathPrefix` (the
// components of `snapshot:subfolder`, so patterns name paths as `restic ls` shows them).

import { childMayMatchAny, matchAny, type Pattern } from '../filter/pattern';

export interface SelectionOptions {
  /** Only entries matching one of these (or inside a matching directory) are restored. */
  include?: Pattern[];
  exclude?: Pattern[];
  /** As include/exclude, ignoring case (the patterns are lower-cased here). */
  iinclude?: Pattern[];
  iexclude?: Pattern[];
  /** Paths in the patterns are matched against these leading components + the walk path. */
  pathPrefix?: string[];
}

export interface Selected {
  /** The entry itself is restored. */
  selected: boolean;
  /** Something below this directory may be (it is walked). */
  descend: boolean;
}

const EVERYTHING: Selected = Object.freeze({ selected: true, descend: true });

const lowerPattern = (p: Pattern): Pattern => ({ ...p, parts: p.parts.map((s) => s.toLowerCase()) });

/** restic's select function: exclusion first; then, with includes, only what they match. */
export function selector(opts: SelectionOptions): (path: string[], isDir: boolean) => Selected {
  const prefix = opts.pathPrefix ?? [];
  const exclude = opts.exclude ?? [];
  const iexclude = (opts.iexclude ?? []).map(lowerPattern);
  const include = opts.include ?? [];
  const iinclude = (opts.iinclude ?? []).map(lowerPattern);
  const excludes = exclude.length + iexclude.length > 0;
  const includes = include.length + iinclude.length > 0;
  if (!excludes && !includes) return () => EVERYTHING;
  return (path, isDir) => {
    const full = prefix.length ? [...prefix, ...path] : path;
    const lower = iexclude.length || iinclude.length ? full.map((c) => c.toLowerCase()) : full;
    if (excludes && (matchAny(exclude, full) || matchAny(iexclude, lower))) return { selected: false, descend: false };
    if (!includes) return { selected: true, descend: isDir };
    const selected = matchAny(include, full) || matchAny(iinclude, lower);
    // The list as a whole (restic ListWithChild), so a negated include can close a directory.
    const descend = isDir && (childMayMatchAny(include, full) || childMayMatchAny(iinclude, lower));
    return { selected, descend };
  };
}
