// SourceFS over the files of an `<input webkitdirectory>` (browsers without File System
// Access: Firefox, Safari). The browser hands over a flat list of File objects whose
// webkitRelativePath is "<picked folder>/<sub/dirs>/<name>"; we rebuild the tree from those
// paths. The snapshot path is "/<picked folder>", sizes come from File.size and mtimes from
// File.lastModified. Such a list never shows empty directories, so they are not backed up.

import { CairnError } from '../../core/errors';
import type { FileRef, SourceEntry, SourceFS } from '../../core/archiver/source';
import { dirEntry, fileEntry, pathOps } from './metadata';
import { withFileName } from '../client/relative-path';
import { sortByName } from '../../core/data/tree';

interface Dir {
  entry: SourceEntry;
  /** Subdirectories by name, and files by name as their index in the list. */
  children: Map<string, SourceEntry | number>;
  /** The position in the walk order of this directory's last file (-1: none). */
  last: number;
}

/** Splits a webkitRelativePath into components; throws on paths that try to escape. */
export function relativeComponents(rel: string): string[] {
  const comps = rel.split('/').filter((c) => c !== '' && c !== '.');
  if (comps.length < 2 || comps.includes('..')) throw new CairnError('USAGE', `not a path inside the picked folder: ${JSON.stringify(rel)}`);
  return comps;
}

export interface FileListSource extends SourceFS {
  /** The snapshot path, "/<picked folder>". */
  readonly target: string;
  readonly files: number;
}

/**
 * The sizes and times of a list's files: known up front (a list of Files here), or arriving
 * while the backup runs (a served list's, read by the page: ./file-server.ts). The source asks
 * for them in the order it walks the folder, so the first directories can be saved while the
 * page is still reading the last ones.
 */
export interface ListMetadata {
  /** Called once: the list indices of the files in the order the source will want them. */
  start(order: Uint32Array): void;
  /** Settles once the files at positions 0..`pos` of that order are known. */
  until(pos: number, signal?: AbortSignal): Promise<void>;
  size(index: number): number;
  lastModified(index: number): number;
}

export function knownMetadata(sizes: readonly number[], lastModified: readonly number[]): ListMetadata {
  return { start() {}, until: async () => {}, size: (i) => sizes[i]!, lastModified: (i) => lastModified[i]! };
}

export function fileListSource(files: readonly File[], relativePaths: readonly string[]): FileListSource & { readonly bytes: number } {
  if (files.length !== relativePaths.length) throw new CairnError('USAGE', `${files.length} files but ${relativePaths.length} relative paths`);
  const sizes = files.map((f) => f.size);
  const paths = relativePaths.map((p, i) => withFileName(p, files[i]!.name));
  const source = fileListSourceOf(
    paths,
    knownMetadata(
      sizes,
      files.map((f) => f.lastModified),
    ),
    (i) => files[i],
  );
  return { ...source, bytes: sizes.reduce((a, b) => a + b, 0) };
}

/**
 * The source over a list's paths and `meta`; `refOf(i)` is what a saver reads for the i-th file.
 * Paths under the picked folder that `exclude` matches are left out here, as the backup would
 * leave them out, so the page never reads their sizes and times (~0.25 ms a file in Chromium:
 * an excluded node_modules of 50 000 files would hold the walk up for seconds).
 */
export function fileListSourceOf(
  relativePaths: readonly string[],
  meta: ListMetadata,
  refOf: (index: number) => FileRef,
  exclude?: (path: string) => boolean,
): FileListSource {
  if (relativePaths.length === 0) throw new CairnError('USAGE', 'the picked folder has no files (empty folders cannot be read without File System Access)');
  const dirs = new Map<string, Dir>();
  let rootName: string | undefined;
  const dirAt = (comps: string[]): Dir => {
    const path = pathOps.join(comps);
    let d = dirs.get(path);
    if (!d) {
      d = { entry: dirEntry(path, comps[comps.length - 1]!, path), children: new Map(), last: -1 };
      dirs.set(path, d);
      if (comps.length > 1) dirAt(comps.slice(0, -1)).children.set(d.entry.node.name, d.entry);
    }
    return d;
  };
  /** Whether the folder of these components (below the picked one) or one above it is excluded. */
  const excludedDirs = new Map<string, boolean>();
  const excludedDir = (comps: string[]): boolean => {
    if (comps.length < 2) return false;
    const path = pathOps.join(comps);
    let x = excludedDirs.get(path);
    if (x === undefined) excludedDirs.set(path, (x = excludedDir(comps.slice(0, -1)) || exclude!(path)));
    return x;
  };
  relativePaths.forEach((rel, i) => {
    const comps = relativeComponents(rel);
    rootName ??= comps[0];
    if (comps[0] !== rootName) throw new CairnError('USAGE', `files from more than one folder: ${JSON.stringify(rootName)} and ${JSON.stringify(comps[0])}`);
    if (exclude && excludedDir(comps.slice(0, -1))) return;
    const parent = dirAt(comps.slice(0, -1));
    // A folder kept whose files are all excluded stays, empty, as the backup would keep it.
    if (exclude?.(pathOps.join(comps))) return;
    const name = comps[comps.length - 1]!;
    if (!parent.children.has(name)) parent.children.set(name, i); // else listed twice
  });
  const target = pathOps.join([rootName!]);

  const { order, position } = walkOrder(dirs, target, relativePaths.length);
  meta.start(order);

  const fileAt = (path: string, name: string, i: number) => fileEntry(path, name, meta.size(i), meta.lastModified(i), refOf(i));
  return {
    target,
    files: order.length,
    ...pathOps,
    async stat(path, signal) {
      const abs = pathOps.absolute(path);
      const d = dirs.get(abs);
      if (d) return d.entry;
      const comps = pathOps.components(abs);
      const i = dirs.get(pathOps.join(comps.slice(0, -1)))?.children.get(comps[comps.length - 1] ?? '');
      if (typeof i === 'number') {
        await meta.until(position[i]!, signal);
        return fileAt(abs, comps[comps.length - 1]!, i);
      }
      throw new CairnError('SOURCE_READ', `${abs}: not in the picked folder`, { detail: { path: abs } });
    },
    // Names at once and each file's entry once its metadata came: the walk saves a folder's
    // first files while the page still reads the sizes and times of its last ones.
    async readNames(dir) {
      return [...(dirs.get(dir.path)?.children.keys() ?? [])];
    },
    async entryOf(dir, name, signal) {
      const path = `${dir.path}/${name}`;
      const c = dirs.get(dir.path)?.children.get(name);
      if (c === undefined) throw new CairnError('SOURCE_READ', `${path}: not in the picked folder`, { detail: { path } });
      if (typeof c !== 'number') return c;
      await meta.until(position[c]!, signal);
      return fileAt(path, name, c);
    },
    async readDir(dir, _onError, signal) {
      const d = dirs.get(dir.path);
      if (!d) return [];
      if (d.last >= 0) await meta.until(d.last, signal);
      // Made afresh for each listing (the scan's and the walk's), not kept for the whole backup.
      return [...d.children].map(([name, c]) => (typeof c === 'number' ? fileAt(`${d.entry.path}/${name}`, name, c) : c));
    },
  };
}

/**
 * The order the metadata are asked in: a folder's files sorted by name (the order the walk
 * takes them in, restic's), then its subfolders' depth-first. The walk finds each file's
 * metadata soon after it asks; a folder listed whole (readDir, the scan) waits only for its
 * own files. Sets each folder's `last`; `position[i]` is file i's place in `order`.
 */
function walkOrder(dirs: Map<string, Dir>, target: string, count: number): { order: Uint32Array; position: Uint32Array } {
  const order = new Uint32Array(count);
  const position = new Uint32Array(count);
  let n = 0;
  const stack = [dirs.get(target)!];
  while (stack.length > 0) {
    const d = stack.pop()!;
    const subdirs: Dir[] = [];
    for (const [, c] of sortByName([...d.children], ([name]) => ({ name }))) {
      if (typeof c === 'number') {
        position[c] = n;
        d.last = n;
        order[n++] = c;
      } else subdirs.push(dirs.get(c.path)!);
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  return { order: order.subarray(0, n), position };
}
