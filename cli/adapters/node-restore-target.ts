// Restores into a directory with node:fs: files are pre-sized and written at offsets, then
// mode, times and (as root) ownership are applied, as restic's restorer does on Linux.

import fs from 'node:fs/promises';
import path from 'node:path';
import type { Node } from '../../core/data/node';
import { unixModeFromGoFileMode } from '../../core/data/file-mode';
import type { FileWriter, RestoreTarget } from '../../core/restorer/target';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export function nodeRestoreTarget(root: string): RestoreTarget {
  const abs = (p: string[]) => path.join(root, ...p);
  return {
    async mkdir(p) {
      await fs.mkdir(abs(p), { recursive: true, mode: 0o700 });
    },
    async createFile(p, size): Promise<FileWriter> {
      const file = abs(p);
      await fs.rm(file, { force: true });
      const fh = await fs.open(file, 'w', 0o600);
      if (size > 0) await fh.truncate(size);
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
