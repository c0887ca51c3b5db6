// The archiver's SourceFS and FileContentReader over node:fs. Metadata mirrors what restic
// 0.14 records on Linux (node_unix.go): Go FileMode, ns times in the local zone, uid/gid
// with user/group names, inode, device ID, link count, symlink target.

import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { closeSync, fstatSync, openSync, read as readCb, readFileSync } from 'node:fs';
import { CairnError } from '../../core/errors';
import { goFileModeFromUnix, nodeTypeFromGoFileMode, RESTIC_MODE_MASK } from '../../core/data/file-mode';
import { unlistable, type FileContentReader, type SourceEntry, type SourceFS } from '../../core/archiver/source';
import { bundledStatWorker, StatThread } from '../pool/stat-thread';
import { BIGS, INTS, lstatBatch, sizeAt, timeAt, type LstatBatch } from './lstat-records';

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
  return nodeEntrySync(p, withAtime);
}

/** The same, synchronously. */
function nodeEntrySync(p: string, withAtime: boolean): SourceEntry {
  const batch = lstatBatch(path.dirname(p), [path.basename(p)]);
  const failed = batch.errors[0];
  if (failed) throw sourceError(p, errnoError(failed));
  return entryAt(batch, 0, p, path.basename(p), withAtime, batch.links[0]?.[1]);
}

function errnoError([, code, message]: [number, string | undefined, string]): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** The entry at position `i` of an lstat batch (lstat-records.ts). */
function entryAt(batch: LstatBatch, i: number, p: string, name: string, withAtime: boolean, linkTarget: string | undefined): SourceEntry {
  users ??= idNames('/etc/passwd');
  groups ??= idNames('/etc/group');
  const ints = batch.ints;
  const at = i * INTS;
  const mode = (goFileModeFromUnix(ints[at]!) & RESTIC_MODE_MASK) >>> 0;
  const type = nodeTypeFromGoFileMode(mode) ?? 'irregular';
  const uid = ints[at + 1]!,
    gid = ints[at + 2]!;
  const size = type === 'file' ? sizeAt(batch, i) : 0;
  const mtime = timeAt(batch, i, 0);
  const entry: SourceEntry = {
    path: p,
    size,
    ref: p,
    node: {
      name,
      type,
      mode,
      mtime,
      atime: withAtime ? timeAt(batch, i, 1) : mtime,
      ctime: timeAt(batch, i, 2),
      uid,
      gid,
      user: users.get(uid),
      group: groups.get(gid),
      inode: batch.bigs[i * BIGS]!,
      deviceId: batch.bigs[i * BIGS + 1]!,
      // restic records the link count of files, symlinks and devices only (fs/node.go nodeFillExtra).
      links: type === 'file' || type === 'symlink' || type === 'dev' || type === 'chardev' ? ints[at + 3]! : undefined,
      size: type === 'file' ? size : undefined,
    },
  };
  if (type === 'dev' || type === 'chardev') entry.node.device = batch.bigs[i * BIGS + 2]!;
  if (type === 'symlink') entry.node.linkTarget = linkTarget ?? '';
  return entry;
}

/** The entries of `names` in `dir`, from one lstat batch: an entry, or the SOURCE_READ error in its place. */
function entriesAt(batch: LstatBatch, dir: string, names: readonly string[], withAtime: boolean): (SourceEntry | CairnError)[] {
  const out: (SourceEntry | CairnError)[] = new Array(names.length);
  const failed = new Map(batch.errors.map((e) => [e[0], e]));
  let link = 0;
  for (let i = 0; i < names.length; i++) {
    const p = path.join(dir, names[i]!);
    const f = failed.get(i);
    if (f) {
      out[i] = sourceError(p, errnoError(f));
      continue;
    }
    const target = batch.links[link]?.[0] === i ? batch.links[link++]![1] : undefined;
    out[i] = entryAt(batch, i, p, names[i]!, withAtime, target);
  }
  return out;
}

/** Entries lstat'ed between two turns of the event loop (the savers' messages wait meanwhile). */
const LSTAT_BATCH = 512;

/**
 * The file system as the archiver reads it; `withAtime` records real access times (restic
 * --with-atime). `statWorker`: the stat thread's script (default: the bundled CLI's; from
 * sources there is none and batches are lstat'ed on this thread).
 */
export function nodeSource(opts: { withAtime?: boolean; statWorker?: URL } = {}): SourceFS {
  const withAtime = opts.withAtime ?? false;
  const statWorker = opts.statWorker ?? bundledStatWorker();
  let thread: StatThread | undefined;
  return {
    stat: (p) => nodeEntry(p, withAtime),
    async readDir(dir, onError) {
      let names: string[];
      try {
        names = await fs.readdir(dir.path);
      } catch (e) {
        throw unlistable(dir.path, sourceError(dir.path, e).message, e);
      }
      // Synchronous lstat: ~20× less CPU per entry than a promise through libuv's pool.
      const out: SourceEntry[] = [];
      for (let i = 0; i < names.length; i += LSTAT_BATCH) {
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const some = names.slice(i, i + LSTAT_BATCH);
        for (const e of entriesAt(lstatBatch(dir.path, some), dir.path, some, withAtime)) {
          if (e instanceof CairnError) onError(e.detail['path'] as string, e);
          else out.push(e);
        }
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
    entryOf: (dir, name) => nodeEntrySync(path.join(dir.path, name), withAtime),
    // On a thread of their own: the lstats (and a cold disk's waits) overlap the walk's work.
    async entriesOf(dir, names) {
      if (statWorker) thread ??= new StatThread(statWorker);
      const batch = thread ? await thread.lstat(dir.path, names) : lstatBatch(dir.path, names);
      return entriesAt(batch, dir.path, names, withAtime);
    },
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
      shortReadEnds: true,
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
