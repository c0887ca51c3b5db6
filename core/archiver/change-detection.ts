// Is a file unchanged since the parent snapshot? Then its content list is reused without
// reading it. restic 0.14 (archiver.fileChanged) compares type, mtime, ctime, size and
// inode; browsers know only size and mtime, so ctime/inode are compared only in strict mode
// (the Node CLI) and only when both sides have them.

import type { Node } from '../data/node';
import type { SourceEntry } from './source';

export function unchanged(old: Node, entry: SourceEntry, strict: boolean): boolean {
  const cur = entry.node;
  if (old.type !== 'file' || cur.type !== 'file' || !old.content) return false;
  if ((old.size ?? 0) !== entry.size) return false;
  if (!old.mtime.equal(cur.mtime)) return false;
  if (strict) {
    if (!old.ctime.isZero() && !cur.ctime.isZero() && !old.ctime.equal(cur.ctime)) return false;
    if (old.inode !== undefined && cur.inode !== undefined && old.inode !== cur.inode) return false;
  }
  return true;
}
