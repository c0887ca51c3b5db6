// The restic node metadata a browser can know about a file: name, size and lastModified.
// Both source adapters (directory handle, webkitdirectory list) build nodes here, so the same
// folder gives the same tree blobs whichever way it was picked. Browsers expose no directory
// times, owners or permissions: directories are listed with the Unix epoch, and a backup gives
// each the time of the backup that first saw it as it is (./folder-times.ts); files 0644,
// directories 0755, uid/gid 0.

import { GoTime } from '../../core/data/go-time';
import { goFileModeFor } from '../../core/data/file-mode';
import type { SourceEntry, FileRef } from '../../core/archiver/source';

const DIR_TIME = GoTime.fromUnix(0);

function fileTime(lastModified: number): GoTime {
  return GoTime.fromMillis(lastModified, -new Date(lastModified).getTimezoneOffset());
}

export function fileEntry(path: string, name: string, size: number, lastModified: number, ref: FileRef): SourceEntry {
  const t = fileTime(lastModified);
  return {
    path,
    size,
    ref,
    node: { name, type: 'file', mode: goFileModeFor('file', 0o644), mtime: t, atime: t, ctime: t, uid: 0, gid: 0, size },
  };
}

export function dirEntry(path: string, name: string, ref: FileRef): SourceEntry {
  return {
    path,
    size: 0,
    ref,
    node: { name, type: 'dir', mode: goFileModeFor('dir', 0o755), mtime: DIR_TIME, atime: DIR_TIME, ctime: DIR_TIME, uid: 0, gid: 0 },
  };
}

/** Source paths are "/<picked folder>/<…>" with '/' separators. */
export const pathOps = {
  components: (p: string) => p.split('/').filter((c) => c !== '' && c !== '.'),
  join: (c: string[]) => '/' + c.join('/'),
  absolute: (p: string) =>
    '/' +
    p
      .split('/')
      .filter((c) => c !== '' && c !== '.')
      .join('/'),
};
