// SourceFS over the files of an `<input webkitdirectory>` (browsers without File System
// Access: Firefox, Safari). The browser hands over a flat list of File objects whose
// webkitRelativePath is "<picked folder>/<sub/dirs>/<name>"; we rebuild the tree from those
// paths. The snapshot path is "/<picked folder>", sizes come from File.size and mtimes from
// File.lastModified. Such a list never shows empty directories, so they are not backed up.

import { CairnError } from '../../core/errors';
import type { FileRef, SourceEntry, SourceFS } from '../../core/archiver/source';
import { dirEntry, fileEntry, pathOps } from './metadata';

interface Dir {
  entry: SourceEntry;
  children: Map<string, SourceEntry>;
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
  readonly bytes: number;
}

/** What a list says of each file, in the same order: its path, size and mtime (ms). */
export interface FileListMeta {
  relativePaths: readonly string[];
  sizes: readonly number[];
  lastModified: readonly number[];
}

export function fileListSource(files: readonly File[], relativePaths: readonly string[]): FileListSource {
  if (files.length !== relativePaths.length) throw new CairnError('USAGE', `${files.length} files but ${relativePaths.length} relative paths`);
  return fileListSourceOf({ relativePaths, sizes: files.map((f) => f.size), lastModified: files.map((f) => f.lastModified) }, (i) => files[i]);
}

/** The source over a list's metadata; `refOf(i)` is what a saver reads for the i-th file. */
export function fileListSourceOf(meta: FileListMeta, refOf: (index: number) => FileRef): FileListSource {
  const { relativePaths, sizes, lastModified } = meta;
  if (sizes.length !== relativePaths.length || lastModified.length !== relativePaths.length) throw new CairnError('USAGE', `${relativePaths.length} paths but ${sizes.length} sizes and ${lastModified.length} times`);
  if (relativePaths.length === 0) throw new CairnError('USAGE', 'the picked folder has no files (empty folders cannot be read without File System Access)');
  const dirs = new Map<string, Dir>();
  let rootName: string | undefined;
  let bytes = 0;
  const dirAt = (comps: string[]): Dir => {
    const path = pathOps.join(comps);
    let d = dirs.get(path);
    if (!d) {
      d = { entry: dirEntry(path, comps[comps.length - 1]!, path), children: new Map() };
      dirs.set(path, d);
      if (comps.length > 1) dirAt(comps.slice(0, -1)).children.set(d.entry.node.name, d.entry);
    }
    return d;
  };
  relativePaths.forEach((rel, i) => {
    const comps = relativeComponents(rel);
    rootName ??= comps[0];
    if (comps[0] !== rootName) throw new CairnError('USAGE', `files from more than one folder: ${JSON.stringify(rootName)} and ${JSON.stringify(comps[0])}`);
    const parent = dirAt(comps.slice(0, -1));
    const name = comps[comps.length - 1]!;
    if (parent.children.has(name)) return; // listed twice
    const size = sizes[i]!;
    parent.children.set(name, fileEntry(pathOps.join(comps), name, size, lastModified[i]!, refOf(i)));
    bytes += size;
  });

  const target = pathOps.join([rootName!]);
  return {
    target,
    files: relativePaths.length,
    bytes,
    ...pathOps,
    async stat(path) {
      const abs = pathOps.absolute(path);
      const d = dirs.get(abs);
      if (d) return d.entry;
      const comps = pathOps.components(abs);
      const f = dirs.get(pathOps.join(comps.slice(0, -1)))?.children.get(comps[comps.length - 1] ?? '');
      if (f) return f;
      throw new CairnError('SOURCE_READ', `${abs}: not in the picked folder`, { detail: { path: abs } });
    },
    async readDir(dir) {
      return [...(dirs.get(dir.path)?.children.values() ?? [])];
    },
  };
}
