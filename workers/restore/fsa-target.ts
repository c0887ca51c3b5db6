// RestoreTarget over a FileSystemDirectoryHandle (a folder the user picked, or OPFS in tests).
// Files are written through createWritable() — the browser's swap file makes each one appear
// complete or not at all — with positional writes, because the restorer delivers blobs in pack
// order, not file order. Browsers cannot create symlinks or set times and modes: symlinks are
// skipped and reported, metadata is left as the browser sets it.

import { domError } from '../../core/backend/fsa';
import { CairnError } from '../../core/errors';
import { assertSafePath } from '../../core/data/node-name';
import type { FileWriter, RestoreTarget } from '../../core/restorer/target';
import { filesMade } from '../source/file-garbage';

type Writable = FileSystemWritableFileStream;
interface SyncHandle {
  write(data: Uint8Array, opts: { at: number }): number;
  getSize(): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}

export interface FsaRestoreTarget extends RestoreTarget {
  /** Paths of symlinks that could not be restored (browsers have no way to make one). */
  readonly skippedSymlinks: string[];
}

/** Handles with a call pending, kept reachable (see createFile). */
const pinned = new Set<FileSystemHandle>();

/**
 * What the browser said, as a coded error for the restore's report: a name it will not make
 * (getFileHandle and getDirectoryHandle throw a TypeError: Chromium refuses a backslash, for
 * one), or what File System Access says of the write (quota, permission, I/O).
 */
function targetError(e: unknown, path: string[]): CairnError {
  const where = '/' + path.join('/');
  if (e instanceof TypeError) {
    return new CairnError('NAME_NOT_ALLOWED', `${where}: this browser does not allow the name ${JSON.stringify(path[path.length - 1])} in a folder it writes`, {
      cause: e,
      detail: { path: where },
    });
  }
  return domError(e, 'restore', where);
}

/** `p`, failing with targetError(). */
function at<T>(p: Promise<T>, path: string[]): Promise<T> {
  return p.catch((e: unknown) => {
    throw targetError(e, path);
  });
}

export function fsaRestoreTarget(root: FileSystemDirectoryHandle): FsaRestoreTarget {
  const dirs = new Map<string, Promise<FileSystemDirectoryHandle>>([['', Promise.resolve(root)]]);
  const dirOf = (path: string[]): Promise<FileSystemDirectoryHandle> => {
    const key = path.join('/');
    if (!dirs.has(key)) assertSafePath(path);
    let d = dirs.get(key);
    if (!d) {
      d = dirOf(path.slice(0, -1)).then((parent) => at(parent.getDirectoryHandle(path[path.length - 1]!, { create: true }), path));
      dirs.set(key, d);
      d.catch(() => dirs.delete(key));
    }
    return d;
  };
  const skippedSymlinks: string[] = [];
  /** Whether sync access handles work under this root (learned from the first file). */
  let syncHandles: boolean | undefined;
  const openFile = async (handle: FileSystemFileHandle, size: number): Promise<FileWriter> => {
    // In the browser's own storage (OPFS) a worker can write synchronously, without the
    // swap file and its copy that createWritable() costs per file; elsewhere that throws.
    if (syncHandles !== false && 'createSyncAccessHandle' in handle) {
      let h: SyncHandle | undefined;
      try {
        h = await (handle as unknown as { createSyncAccessHandle(): Promise<SyncHandle> }).createSyncAccessHandle();
        syncHandles = true;
      } catch (e) {
        if (syncHandles === true) throw e; // worked before: this is a real failure
        syncHandles = false;
      }
      if (h) {
        const sh = h;
        // Not sized up front, and not flushed at the end: in Chromium each truncate() that
        // grows a file and each flush() (an fsync) cost milliseconds of IPC and disk, which
        // for thousands of files outweighed writing their bytes (restic does not fsync
        // restored files either). Positional writes grow the file; old content goes first.
        try {
          if (sh.getSize() !== 0) sh.truncate(0);
        } catch (e) {
          sh.close();
          throw e;
        }
        let open = true;
        return {
          async write(offset, data) {
            let done = 0;
            while (done < data.length) done += sh.write(data.subarray(done), { at: offset + done });
          },
          async close() {
            if (!open) return;
            open = false;
            sh.close();
          },
        };
      }
    }
    const w: Writable = await handle.createWritable({ keepExistingData: false });
    if (size > 0) await w.truncate(size);
    // One write at a time per stream: FileSystemWritableFileStream locks itself per call.
    let chain: Promise<void> = Promise.resolve();
    return {
      write(offset, data) {
        const run = chain.then(() => w.write({ type: 'write', position: offset, data: data as Uint8Array<ArrayBuffer> }));
        chain = run.catch(() => {});
        return run;
      },
      async close() {
        await chain;
        await w.close();
      },
    };
  };
  return {
    skippedSymlinks,
    async mkdir(path) {
      await dirOf(path);
    },
    async createFile(path, size): Promise<FileWriter> {
      assertSafePath(path);
      const dir = await dirOf(path.slice(0, -1));
      const handle = await at(dir.getFileHandle(path[path.length - 1]!, { create: true }), path);
      // Reachable until it is open: Chromium 156 let the garbage collector take a file handle
      // whose only reference was its own pending createSyncAccessHandle(), and that call then
      // never settled (seen in restore workers: 4 of D1's 5200 files hung a restore).
      pinned.add(handle);
      // Each file made costs ~12 KiB in the renderer and ~6 in the browser process until a full
      // collection, which making files alone does not bring about (bench/probes/handle-memory.mjs).
      filesMade(3);
      try {
        const w = await at(openFile(handle, size), path);
        return { write: (offset, data) => at(w.write(offset, data), path), close: () => at(w.close(), path) };
      } finally {
        pinned.delete(handle);
      }
    },
    async symlink(path, target) {
      skippedSymlinks.push('/' + path.join('/'));
      throw new CairnError('USAGE', `/${path.join('/')}: browsers cannot create symbolic links (it points to ${target})`, {
        detail: { path: '/' + path.join('/') },
      });
    },
    async setMetadata() {},
  };
}
