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
import type { FileWriter, RestoreTarget } from '../../core/restorer/target';
import { ConfinedDirs } from './confined-dirs';

const fsc = fs.constants;
const MAX_BLOB = 8 << 20;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const FLAGS = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | fsc.O_NOFOLLOW;

const seconds = (t: Node['mtime']) => t.unixMillis() / 1000;

export function nodeRestoreTarget(root: string): RestoreTarget {
  const dirs = new ConfinedDirs(root);
  return {
    async mkdir(p) {
      dirs.ensure(p);
    },
    async createFile(p, size): Promise<FileWriter> {
      const file = dirs.inside(p);
      // Truncated in place; whatever is there as a symlink is replaced, never followed.
      let fd: number;
      try {
        fd = fs.openSync(file, FLAGS, 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ELOOP') throw e;
        fs.rmSync(file, { force: true });
        fd = fs.openSync(file, FLAGS, 0o600);
      }
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        fs.closeSync(fd);
      };
      try {
        // Sized up front when it takes more than one blob (writes come in pack order); a
        // one-blob file gets its size from the single write.
        if (size > MAX_BLOB) fs.ftruncateSync(fd, size);
      } catch (e) {
        close();
        throw e;
      }
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
    },
    async symlink(p, target) {
      const file = dirs.inside(p);
      fs.rmSync(file, { force: true });
      dirs.replaced(p);
      fs.symlinkSync(target, file);
    },
    async setMetadata(p, node: Node) {
      const file = dirs.inside(p);
      // chmod and utimes follow a symlink: only a folder checked here gets them.
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
      if (node.type !== 'dir') return; // files are finished on their descriptor
      if (node.mode !== undefined) fs.chmodSync(file, unixModeFromGoFileMode(node.mode) & 0o7777);
      fs.utimesSync(file, seconds(node.atime), seconds(node.mtime));
    },
  };
}
