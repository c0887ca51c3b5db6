// SourceFS over a FileSystemDirectoryHandle (showDirectoryPicker, or an OPFS directory in
// tests). Sizes and mtimes come from getFile() during the listing (metadata only; no bytes
// are read here), and that File is the ref a file-saver worker reads. A file changed since
// refuses that read; the archiver then asks `reopen` for a fresh File and reads the file as
// it is now, flagged by its size.
//
// Every directory is listed twice: by the progress scan (totals for the ETA) and by the
// backup's walk. getFile() is what costs (a request to the browser process: 50 000 took
// 19–24 s here), so whichever listing comes second takes the sizes and times the first one
// learnt. Its entries carry the file's handle, opened (getFile() in this worker, the File then
// cloned to the saver: cheaper than a getFile() in the saver) only for a file that is read:
// an unchanged re-backup pays getFile() once per file instead of twice.

import { CairnError } from '../../core/errors';
import type { SourceEntry, SourceFS } from '../../core/archiver/source';
import { mapLimit } from '../../core/concurrency/concurrency';
import { dirEntry, fileEntry, pathOps } from './metadata';
import { filesMade } from './file-garbage';

function sourceError(path: string, e: unknown): CairnError {
  const name = (e as Error)?.name;
  const why =
    name === 'NotFoundError'
      ? 'vanished before it could be read'
      : name === 'NotAllowedError' || name === 'SecurityError'
        ? 'permission denied'
        : ((e as Error)?.message ?? String(e));
  return new CairnError('SOURCE_READ', `${path}: ${why}`, { cause: e, detail: { path, domError: name } });
}

export interface HandleSource extends SourceFS {
  readonly target: string;
}

/** Sizes and times (by file name) of one directory, as its first listing found them. */
type Learnt = Map<string, readonly [size: number, lastModified: number]>;

/** At most this many files' sizes and times wait for their directory's second listing. */
const SHARED_LIMIT = 100_000;

export function handleSource(root: FileSystemDirectoryHandle, opts: { sharedLimit?: number } = {}): HandleSource {
  const target = pathOps.join([root.name || 'folder']);
  const rootEntry = dirEntry(target, root.name || 'folder', root);
  const limit = opts.sharedLimit ?? SHARED_LIMIT;
  /** Directory path → what its first listing learnt (taken, and dropped, by the second). */
  const shared = new Map<string, Promise<Learnt>>();
  let sharedFiles = 0;
  return {
    target,
    ...pathOps,
    async stat(path) {
      if (pathOps.absolute(path) !== target)
        throw new CairnError('SOURCE_READ', `${path}: only the picked folder itself can be a target`, { detail: { path } });
      try {
        await root.values().next(); // a folder removed since it was picked refuses to be listed
      } catch (e) {
        throw sourceError(target, e);
      }
      return rootEntry;
    },
    async readDir(dir, onError, signal) {
      const handle = dir.ref as FileSystemDirectoryHandle;
      const children: FileSystemHandle[] = [];
      try {
        for await (const h of handle.values()) {
          if (signal?.aborted) break;
          children.push(h);
        }
      } catch (e) {
        onError(dir.path, sourceError(dir.path, e));
        return [];
      }
      // The first listing of this directory shares what it learns; the second takes it.
      const first = shared.get(dir.path);
      let known: Learnt | undefined;
      let learnt: Learnt | undefined;
      let publish: ((l: Learnt) => void) | undefined;
      if (first) {
        shared.delete(dir.path);
        known = await first;
        sharedFiles -= known.size;
      } else if (sharedFiles < limit) {
        learnt = new Map();
        shared.set(dir.path, new Promise<Learnt>((resolve) => (publish = resolve)));
      }
      const out: SourceEntry[] = [];
      try {
        await mapLimit(children, 16, async (h) => {
          const path = `${dir.path}/${h.name}`;
          if (h.kind === 'directory') {
            out.push(dirEntry(path, h.name, h));
            return;
          }
          const file = h as FileSystemFileHandle;
          const reopen = () =>
            file.getFile().then(
              (f) => (filesMade(), f),
              (e: unknown) => Promise.reject(sourceError(path, e)),
            );
          const k = known?.get(h.name);
          if (k) {
            out.push({ ...fileEntry(path, h.name, k[0], k[1], file), reopen, open: reopen });
            return;
          }
          try {
            const f = await file.getFile();
            filesMade();
            learnt?.set(h.name, [f.size, f.lastModified]);
            // The File taken for size and time goes to the saver as is (cloning it within this
            // renderer is cheap; a handle costs the saver another getFile() round trip to the
            // browser process for every file, which dominates a backup of many small files).
            // Changed since? Read it afresh.
            out.push({ ...fileEntry(path, h.name, f.size, f.lastModified, f), reopen });
          } catch (e) {
            onError(path, sourceError(path, e));
          }
        });
      } finally {
        if (learnt) sharedFiles += learnt.size;
        publish?.(learnt ?? new Map());
      }
      return out;
    },
  };
}
