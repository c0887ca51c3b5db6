// RestoreTarget over a FileSystemDirectoryHandle (a folder the user picked, or OPFS in tests).
// Files are written through createWritable() — the browser's swap file makes each one appear
// complete or not at all — or in OPFS through sync access handles (staged under a temporary
// name when written in several writes), with positional writes, because the restorer delivers
// blobs in pack order, not file order. A failed file is discarded (the restorer aborts and
// removes it). Browsers cannot create symlinks or set times and modes: symlinks are
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

/**
 * Suffix of a file written in several writes through a sync access handle (OPFS), which has no
 * swap file to make it appear whole: it is written under this name and moved to its own once
 * complete, so a restore cut short (a tab closed) leaves no part-written file under the real name.
 */
const PARTIAL = '.cairn-partial';
/** Longest name most file systems take. */
const MAX_NAME = 255;

/** Writes through an OPFS sync access handle, in place or `staged` under the PARTIAL name. */
function syncWriter(sh: SyncHandle, staged?: { dir: FileSystemDirectoryHandle; handle: FileSystemFileHandle; name: string }): FileWriter {
  // Not sized up front, and not flushed at the end: in Chromium each truncate() that grows a
  // file and each flush() (an fsync) cost milliseconds of IPC and disk, which for thousands of
  // files outweighed writing their bytes (restic does not fsync restored files either).
  // Positional writes grow the file; old content goes first.
  try {
    if (sh.getSize() !== 0) sh.truncate(0);
  } catch (e) {
    sh.close();
    throw e;
  }
  let open = true;
  const shut = () => {
    if (!open) return false;
    open = false;
    sh.close();
    return true;
  };
  return {
    async write(offset, data) {
      let done = 0;
      while (done < data.length) done += sh.write(data.subarray(done), { at: offset + done });
    },
    async close() {
      // (move() replaces a file of that name, as a restore does.)
      if (shut() && staged) await (staged.handle as unknown as { move(name: string): Promise<void> }).move(staged.name);
    },
    async abort() {
      shut();
      if (staged) await staged.dir.removeEntry(staged.name + PARTIAL).catch(() => {});
    },
  };
}

/** Writes through createWritable(): the browser's swap file makes the file appear whole, or not at all on abort. */
async function writableWriter(w: Writable, size: number): Promise<FileWriter> {
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
    async abort() {
      await chain;
      await w.abort();
    },
  };
}

/** Opens files for writing under one root, learning from the first whether sync access handles work there. */
class FileOpener {
  /** Whether sync access handles work under this root (learned from the first file). */
  #syncHandles: boolean | undefined;

  /** Whether a file of `name` written in `writes` writes is staged under the PARTIAL name. */
  staged(name: string, writes: number): boolean {
    return writes > 1 && this.#syncHandles !== false && new TextEncoder().encode(name + PARTIAL).length <= MAX_NAME;
  }

  async open(dir: FileSystemDirectoryHandle, path: string[], size: number, staged: boolean): Promise<FileWriter> {
    const name = path[path.length - 1]!;
    const handle = await at(dir.getFileHandle(staged ? name + PARTIAL : name, { create: true }), path);
    // Reachable until it is open: Chromium 156 let the garbage collector take a file handle
    // whose only reference was its own pending createSyncAccessHandle(), and that call then
    // never settled, which hung the restore waiting for it.
    pinned.add(handle);
    // Each file made costs ~12 KiB in the renderer and ~6 in the browser process until a full
    // collection, which making files alone does not bring about (bench/probes/handle-memory.mjs).
    filesMade(3);
    try {
      const sh = await this.#openSync(handle);
      if (sh) return syncWriter(sh, staged ? { dir, handle, name } : undefined);
      if (!staged) return await writableWriter(await handle.createWritable({ keepExistingData: false }), size);
      await dir.removeEntry(name + PARTIAL); // not OPFS after all: the swap file does it
      return await this.open(dir, path, size, false);
    } finally {
      pinned.delete(handle);
    }
  }

  /** In the browser's own storage (OPFS) a worker can write synchronously, without the swap file and its copy that createWritable() costs per file; elsewhere that throws. */
  async #openSync(handle: FileSystemFileHandle): Promise<SyncHandle | undefined> {
    if (this.#syncHandles === false || !('createSyncAccessHandle' in handle)) return undefined;
    try {
      const h = await (handle as unknown as { createSyncAccessHandle(): Promise<SyncHandle> }).createSyncAccessHandle();
      this.#syncHandles = true;
      return h;
    } catch (e) {
      if (this.#syncHandles === true) throw e; // worked before: this is a real failure
      this.#syncHandles = false;
      return undefined;
    }
  }
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
  /** A folder that is already there (removing never creates the folders on its way). */
  const existingDir = async (path: string[]): Promise<FileSystemDirectoryHandle> => {
    const known = dirs.get(path.join('/'));
    if (known || path.length === 0) return known ?? root;
    return (await existingDir(path.slice(0, -1))).getDirectoryHandle(path[path.length - 1]!);
  };
  const skippedSymlinks: string[] = [];
  const files = new FileOpener();
  return {
    skippedSymlinks,
    async mkdir(path) {
      await dirOf(path);
    },
    async createFile(path, size, opts): Promise<FileWriter> {
      assertSafePath(path);
      const dir = await dirOf(path.slice(0, -1));
      const w = await at(files.open(dir, path, size, files.staged(path[path.length - 1]!, opts?.writes ?? 1)), path);
      return { write: (offset, data) => at(w.write(offset, data), path), close: () => at(w.close(), path), abort: () => at(w.abort!(), path) };
    },
    async symlink(path, target) {
      skippedSymlinks.push('/' + path.join('/'));
      throw new CairnError('USAGE', `/${path.join('/')}: browsers cannot create symbolic links (it points to ${target})`, {
        detail: { path: '/' + path.join('/') },
      });
    },
    async setMetadata() {},
    async remove(path, opts) {
      assertSafePath(path);
      try {
        const dir = await existingDir(path.slice(0, -1));
        await dir.removeEntry(path[path.length - 1]!, { recursive: opts?.recursive ?? false });
      } catch (e) {
        if (e instanceof DOMException && e.name === 'NotFoundError') return; // nothing there to remove
        throw targetError(e, path);
      }
      const key = path.join('/');
      for (const k of [...dirs.keys()]) if (k === key || k.startsWith(key + '/')) dirs.delete(k);
    },
  };
}
