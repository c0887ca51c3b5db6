// Restores into a directory with node:fs: files are pre-sized and written at offsets, then
// mode, times and (as root) ownership are applied, as restic's restorer does on Linux.

import fs from 'node:fs/promises';
import { constants as fsc } from 'node:fs';
import path from 'node:path';
import type { Node } from '../../core/data/node';
import { unixModeFromGoFileMode } from '../../core/data/file-mode';
import type { FileWriter, RestoreTarget } from '../../core/restorer/target';

const MAX_BLOB = 8 << 20;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export function nodeRestoreTarget(root: string): RestoreTarget {
  const abs = (p: string[]) => path.join(root, ...p);
  return {
    async mkdir(p) {
      await fs.mkdir(abs(p), { recursive: true, mode: 0o700 });
    },
    async createFile(p, size): Promise<FileWriter> {
      const file = abs(p);
      // Truncated in place; whatever is there as a symlink is replaced, never followed.
      const flags = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | fsc.O_NOFOLLOW;
      const fh = await fs.open(file, flags, 0o600).catch(async (e: NodeJS.ErrnoException) => {
        if (e.code !== 'ELOOP') throw e;
        await fs.rm(file, { force: true });
        return fs.open(file, flags, 0o600);
      });
      // Sized up front when it takes more than one blob (writes come in pack order); a
      // one-blob file gets its size from the single write.
      if (size > MAX_BLOB) await fh.truncate(size);
      return {
        async write(offset, data) {
          let done = 0;
          while (done < data.length) {
            const { bytesWritten } = await fh.write(data, done, data.length - done, offset + done);
            done += bytesWritten;
          }
        },
        close: () => fh.close(),
      };
    },
    async symlink(p, target) {
      const file = abs(p);
      await fs.rm(file, { force: true });
      await fs.symlink(target, file);
    },
    async setMetadata(p, node: Node) {
      const file = abs(p);
      if (isRoot) await fs.lchown(file, node.uid, node.gid).catch(() => {});
      if (node.type !== 'symlink' && node.mode !== undefined) await fs.chmod(file, unixModeFromGoFileMode(node.mode) & 0o7777);
      const at = node.atime.unixMillis() / 1000, mt = node.mtime.unixMillis() / 1000;
      if (node.type === 'symlink') await fs.lutimes(file, at, mt).catch(() => {});
      else await fs.utimes(file, at, mt);
    },
  };
}
