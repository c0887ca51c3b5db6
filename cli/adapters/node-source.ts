// The archiver's SourceFS and FileContentReader over node:fs. Metadata mirrors what restic
// 0.14 records on Linux (node_unix.go): Go FileMode, ns times in the local zone, uid/gid
// with user/group names, inode, device ID, link count, symlink target.

import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { closeSync, fstatSync, lstatSync, openSync, read as readCb, readFileSync, readlinkSync, type BigIntStats } from 'node:fs';
import { CairnError } from '../../core/errors';
import { GoTime } from '../../core/data/go-time';
import { goFileModeFromUnix, nodeTypeFromGoFileMode, RESTIC_MODE_MASK } from '../../core/data/file-mode';
import { unlistable, type FileContentReader, type SourceEntry, type SourceFS } from '../../core/archiver/source';

const PIECE = 1 << 20;

function idNames(file: string): Map<number, string> {
  const m = new Map<number, string>();
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length >= 3 && !m.has(Number(f[2]))) m.set(Number(f[2]), f[0]!);
    }
  } catch {
    // no /etc/passwd (containers): names stay empty, as restic leaves them
  }
  return m;
}

let users: Map<number, string> | undefined;
let groups: Map<number, string> | undefined;

function localTime(ns: bigint): GoTime {
  const ms = Number(ns / 1_000_000n);
  return GoTime.fromUnixNanos(ns, -new Date(ms).getTimezoneOffset() * 60);
}

function sourceError(p: string, e: unknown): CairnError {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'vanished before it could be read'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ELOOP' // opened with O_NOFOLLOW: it is a symlink now
          ? 'file changed type, refusing to archive'
          : (e as Error).message;
  return new CairnError('SOURCE_READ', `${p}: ${why}`, { cause: e, detail: { path: p, errno: code } });
}

/**
 * One path's entry (lstat). Without `withAtime` the access time recorded is the modification
 * time, as restic 0.18 records it unless --with-atime: reading a file or listing a folder moves
 * its atime, so a real one would make every backup's trees new (0.14 stored it).
 */
export async function nodeEntry(p: string, withAtime = false): Promise<SourceEntry> {
  let st: BigIntStats;
  try {
    st = await fs.lstat(p, { bigint: true });
  } catch (e) {
    throw sourceError(p, e);
  }
  const entry = entryOf(p, st, withAtime);
  if (entry.node.type === 'symlink') entry.node.linkTarget = await fs.readlink(p).catch(() => '');
  return entry;
}

/** The same, synchronously: a listing lstats its entries one after the other, as restic does. */
function nodeEntrySync(p: string, withAtime: boolean): SourceEntry {
  let st: BigIntStats;
  try {
    st = lstatSync(p, { bigint: true });
  } catch (e) {
    throw sourceError(p, e);
  }
  const entry = entryOf(p, st, withAtime);
  if (entry.node.type === 'symlink') {
    try {
      entry.node.linkTarget = readlinkSync(p);
    } catch {
      entry.node.linkTarget = '';
    }
  }
  return entry;
}

function entryOf(p: string, st: BigIntStats, withAtime: boolean): SourceEntry {
  users ??= idNames('/etc/passwd');
  groups ??= idNames('/etc/group');
  const mode = (goFileModeFromUnix(Number(st.mode)) & RESTIC_MODE_MASK) >>> 0;
  const type = nodeTypeFromGoFileMode(mode) ?? 'irregular';
  const uid = Number(st.uid),
    gid = Number(st.gid);
  const size = type === 'file' ? Number(st.size) : 0;
  const mtime = localTime(st.mtimeNs);
  const entry: SourceEntry = {
    path: p,
    size,
    ref: p,
    node: {
      name: path.basename(p),
      type,
      mode,
      mtime,
      atime: withAtime ? localTime(st.atimeNs) : mtime,
      ctime: localTime(st.ctimeNs),
      uid,
      gid,
      user: users.get(uid),
      group: groups.get(gid),
      inode: st.ino,
      deviceId: st.dev,
      // restic records the link count of files, symlinks and devices only (fs/node.go nodeFillExtra).
      links: type === 'file' || type === 'symlink' || type === 'dev' || type === 'chardev' ? Number(st.nlink) : undefined,
      size: type === 'file' ? size : undefined,
    },
  };
  if (type === 'dev' || type === 'chardev') entry.node.device = st.rdev;
  return entry;
}

/** Entries lstat'ed between two turns of the event loop (the savers' messages wait meanwhile). */
const LSTAT_BATCH = 512;

/** The file system as the archiver reads it; `withAtime` records real access times (restic --with-atime). */
export function nodeSource(opts: { withAtime?: boolean } = {}): SourceFS {
  const entry = (p: string) => nodeEntry(p, opts.withAtime);
  return {
    stat: (p) => entry(p),
    async readDir(dir, onError) {
      let names: string[];
      try {
        names = await fs.readdir(dir.path);
      } catch (e) {
        throw unlistable(dir.path, sourceError(dir.path, e).message, e);
      }
      // Synchronous lstat: ~20× less CPU per entry than a promise through libuv's pool, which
      // is what a folder of 200 000 small files costs most on the coordinator.
      const out: SourceEntry[] = [];
      for (let i = 0; i < names.length; i++) {
        const p = path.join(dir.path, names[i]!);
        try {
          out.push(nodeEntrySync(p, opts.withAtime ?? false));
        } catch (e) {
          onError(p, e);
        }
        if (i % LSTAT_BATCH === LSTAT_BATCH - 1) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return out;
    },
    async readNames(dir) {
      try {
        return await fs.readdir(dir.path);
      } catch (e) {
        throw unlistable(dir.path, sourceError(dir.path, e).message, e);
      }
    },
    // Synchronous lstat, as in readDir: the walk takes its entries one after the other.
    entryOf: (dir, name) => nodeEntrySync(path.join(dir.path, name), opts.withAtime ?? false),
    components: (p) => path.resolve(p).split(path.sep).filter(Boolean),
    join: (c) => path.sep + c.join(path.sep),
    absolute: (p) => path.resolve(p),
  };
}

export const nodeSourceFS: SourceFS = nodeSource();

const NOATIME = fsConstants.O_NOATIME ?? 0;
/**
 * Never follow a symlink, never block: the path may have become a symlink or a FIFO since it
 * was listed, and opening a FIFO without O_NONBLOCK waits for a writer for good (regular files
 * read the same either way).
 */
const OPEN_FLAGS = fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | fsConstants.O_NOFOLLOW;

/** Opens `p` for reading, refusing anything that is no longer a regular file (restic: MakeReadable, then fstat). */
function openRegular(p: string): number {
  let fd: number;
  try {
    fd = openSync(p, OPEN_FLAGS | NOATIME);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM' || !NOATIME) throw sourceError(p, e);
    try {
      fd = openSync(p, OPEN_FLAGS); // O_NOATIME needs file ownership
    } catch (e2) {
      throw sourceError(p, e2);
    }
  }
  let regular = false;
  try {
    regular = fstatSync(fd).isFile();
  } finally {
    if (!regular) closeSync(fd);
  }
  if (!regular) throw new CairnError('SOURCE_READ', `${p}: file changed type, refusing to archive`, { detail: { path: p } });
  return fd;
}

export const nodeFileReader: FileContentReader = {
  open(ref) {
    const p = ref as string;
    const fd = openRegular(p);
    return {
      readInto(buf) {
        // Asynchronous, so a worker computes on another file while the disk reads this one.
        return new Promise<number>((resolve, reject) => {
          readCb(fd, buf, 0, buf.length, null, (e, n) => (e ? reject(sourceError(p, e)) : resolve(n)));
        });
      },
      close() {
        closeSync(fd);
      },
    };
  },
  async *read(ref, size) {
    const p = ref as string;
    const fd = openRegular(p);
    const readAt = (buf: Uint8Array) =>
      new Promise<number>((resolve, reject) => readCb(fd, buf, 0, buf.length, null, (e, n) => (e ? reject(sourceError(p, e)) : resolve(n))));
    try {
      let want = Math.min(Math.max(size, 1), PIECE);
      for (;;) {
        const buf = new Uint8Array(want);
        const n = await readAt(buf);
        if (n === 0) return;
        yield n === want ? buf : buf.subarray(0, n);
        want = PIECE;
      }
    } finally {
      closeSync(fd);
    }
  },
};
