// Restores into a directory with node:fs: files are written at offsets, then mode, times and
// (as root) ownership are applied on the open descriptor, as restic's restorer does on Linux.
// Every path stays inside the root: its folders are real directories checked by ConfinedDirs,
// and the last component is opened with O_NOFOLLOW or changed with l*-calls.
// Calls are synchronous on purpose: each is a short syscall on the page cache, and handing
// 300,000 of them (50k small files) to libuv's thread pool cost more CPU than the calls.

import fs from 'node:fs';
import { CairnError } from '../../core/errors';
import type { Node } from '../../core/data/node';
import { unixModeFromGoFileMode } from '../../core/data/file-mode';
import type { ExistingEntry, FileReader, FileWriter, RestoreTarget } from '../../core/restorer/target';
import { ConfinedDirs } from './confined-dirs';

const fsc = fs.constants;
const MAX_BLOB = 8 << 20;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const FRESH = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | fsc.O_NOFOLLOW;
/** An existing entry is opened as is (O_NONBLOCK: a fifo there must not block the open) and checked before anything is cut. */
const EXISTING = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_NOFOLLOW | fsc.O_NONBLOCK;

/** Seconds as a double: the closest Node's fs calls come to the nanoseconds restic sets (libuv then keeps whole microseconds). */
const seconds = (t: Node['mtime']) => t.sec + t.nsec / 1e9;

export interface NodeRestoreTargetOptions {
  /** A folder where a file goes is removed with everything in it (restic's --delete); else only an empty one is. */
  replaceFolders?: boolean;
}

export function nodeRestoreTarget(root: string, opts: NodeRestoreTargetOptions = {}): RestoreTarget {
  const dirs = new ConfinedDirs(root);
  return {
    async mkdir(p) {
      try {
        dirs.ensure(p);
      } catch (e) {
        throw coded(e);
      }
    },
    isNew: (dir) => dirs.isNew(dir),
    async createFile(p, size, o): Promise<FileWriter> {
      const fresh = dirs.isNew(p.slice(0, -1));
      let fd: number;
      try {
        const file = dirs.inside(p);
        fd = fresh ? openReplacing(file, FRESH, opts) : openExisting(file, size, o?.keep ?? false, opts);
      } catch (e) {
        throw coded(e);
      }
      try {
        // Sized up front when it takes more than one blob (writes come in pack order); a
        // one-blob file gets its size from the single write.
        if (size > MAX_BLOB && (fresh || fs.fstatSync(fd).size < size)) fs.ftruncateSync(fd, size);
      } catch (e) {
        fs.closeSync(fd);
        throw e;
      }
      return fileWriter(fd);
    },
    async symlink(p, target) {
      try {
        const file = dirs.inside(p);
        fs.rmSync(file, { force: true });
        dirs.replaced(p);
        fs.symlinkSync(target, file);
      } catch (e) {
        throw coded(e);
      }
    },
    async setMetadata(p, node: Node) {
      setMetadata(dirs, p, node);
    },
    async stat(p): Promise<ExistingEntry | undefined> {
      if (!dirs.check(p.slice(0, -1))) return undefined;
      const st = fs.lstatSync(dirs.abs(p), { bigint: true, throwIfNoEntry: false });
      if (!st) return undefined;
      const type = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';
      return { type, size: Number(st.size), mtimeNs: st.mtimeNs };
    },
    async openRead(p): Promise<FileReader> {
      if (!dirs.check(p.slice(0, -1))) throw new CairnError('NOT_FOUND', `/${p.join('/')} is not in a folder of the target`);
      return fileReader(fs.openSync(dirs.abs(p), fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK));
    },
    async remove(p, o) {
      if (!dirs.check(p.slice(0, -1))) return;
      const file = dirs.abs(p);
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!st) return;
      if (!st.isDirectory()) fs.unlinkSync(file);
      else if (o?.recursive)
        fs.rmSync(file, { recursive: true, force: true }); // rm -r: symlinks inside are removed, not followed
      else fs.rmdirSync(file);
      dirs.replaced(p);
    },
    async list(p) {
      return dirs.check(p) ? fs.readdirSync(dirs.abs(p)) : [];
    },
  };
}

/**
 * A path the file system will not take because it is too long (a component over NAME_MAX, or
 * the whole over PATH_MAX: a tree nested ~2000 deep) is NAME_NOT_ALLOWED; other errors pass.
 */
function coded(e: unknown): unknown {
  if ((e as NodeJS.ErrnoException | undefined)?.code !== 'ENAMETOOLONG') return e;
  return new CairnError('NAME_NOT_ALLOWED', 'the path is longer than the file system of the target allows (ENAMETOOLONG)', {
    cause: e,
    detail: { errno: 'ENAMETOOLONG' },
  });
}

/** Opens `file` with `flags`; a symlink there is replaced, never followed, and so is a folder where the options allow. */
function openReplacing(file: string, flags: number, opts: NodeRestoreTargetOptions): number {
  try {
    return fs.openSync(file, flags, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO') fs.rmSync(file, { force: true });
    else if (code === 'EISDIR') {
      if (opts.replaceFolders) fs.rmSync(file, { recursive: true, force: true });
      else fs.rmdirSync(file); // a folder with something in it stays, and the file fails
    } else if (code === 'EACCES' && fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) {
      fs.chmodSync(file, 0o600); // read-only from an earlier restore: its metadata is set again after
    } else throw e;
    return fs.openSync(file, flags, 0o600);
  }
}

/**
 * Opens what is at `file` for writing `size` bytes without cutting it blindly (restic
 * createFile): anything but a regular file of one link is replaced by a new file; otherwise it
 * is emptied, or with `keep` only shortened to `size`.
 */
function openExisting(file: string, size: number, keep: boolean, opts: NodeRestoreTargetOptions): number {
  let fd = openReplacing(file, EXISTING, opts);
  const st = fs.fstatSync(fd);
  if (!st.isFile() || st.nlink > 1) {
    // Hard-linked: writing into it would change the other names too.
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    fd = fs.openSync(file, FRESH | fsc.O_EXCL, 0o600);
  } else if (!keep && st.size > 0) fs.ftruncateSync(fd, 0);
  else if (st.size > size) fs.ftruncateSync(fd, size);
  return fd;
}

function fileWriter(fd: number): FileWriter {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    fs.closeSync(fd);
  };
  return {
    async write(offset, data) {
      let done = 0;
      while (done < data.length) done += fs.writeSync(fd, data, done, data.length - done, offset + done);
    },
    async close() {
      close();
    },
    async finish(node: Node) {
      try {
        if (isRoot) {
          try {
            fs.fchownSync(fd, node.uid, node.gid);
          } catch {
            // as restic: ownership is best effort
          }
        }
        if (node.mode !== undefined) fs.fchmodSync(fd, unixModeFromGoFileMode(node.mode) & 0o7777);
        fs.futimesSync(fd, seconds(node.atime), seconds(node.mtime));
      } finally {
        close();
      }
    },
  };
}

function fileReader(fd: number): FileReader {
  return {
    async read(offset, length) {
      const out = new Uint8Array(length);
      let done = 0;
      for (let n = -1; done < length && n !== 0; done += n) n = fs.readSync(fd, out, done, length - done, offset + done);
      return out.subarray(0, done);
    },
    async close() {
      fs.closeSync(fd);
    },
  };
}

function setMetadata(dirs: ConfinedDirs, p: string[], node: Node): void {
  const file = dirs.inside(p);
  // chmod and utimes follow a symlink: only a folder checked here, or a regular file just seen, gets them.
  if (node.type === 'dir' && !dirs.isReal(p))
    throw new CairnError('INVALID_NAME', `/${p.join('/')}: not a folder made by this restore; its metadata was not set`, {
      detail: { path: '/' + p.join('/') },
    });
  if (isRoot) {
    try {
      fs.lchownSync(file, node.uid, node.gid);
    } catch {
      // best effort
    }
  }
  if (node.type === 'symlink') {
    try {
      fs.lutimesSync(file, seconds(node.atime), seconds(node.mtime));
    } catch {
      // not everywhere
    }
    return;
  }
  if (node.type === 'file' && !fs.lstatSync(file).isFile()) return;
  if (node.mode !== undefined) fs.chmodSync(file, unixModeFromGoFileMode(node.mode) & 0o7777);
  fs.utimesSync(file, seconds(node.atime), seconds(node.mtime));
}
