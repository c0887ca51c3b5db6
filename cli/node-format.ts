// How restic prints a node on the terminal and in `find --json`: the long listing line of
// ls/find (`formatNode`, times in the local zone), and the node as Go's default JSON
// encoding of restic's Node struct with find's extra and hidden fields.

import type { Node } from '../core/data/node';
import { goFileModeFor, goFileModeString } from '../core/data/file-mode';
import type { GoTime } from '../core/data/go-time';
import { goStringify, type GoValue } from './go-json-out';

const two = (n: number) => String(n).padStart(2, '0');

/** Go's t.Local().Format("2006-01-02 15:04:05"): the process's zone (TZ), like restic. */
export function formatLocalTime(t: GoTime): string {
  const d = new Date(t.unixMillis());
  const y = d.getFullYear();
  const year = y < 0 ? '-' + String(-y).padStart(4, '0') : String(y).padStart(4, '0');
  return `${year}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** The node's FileMode with its type bits (restic adds them from the node type when printing). */
function typedMode(n: Node): number {
  const perm = n.mode ?? 0;
  if (n.type === 'irregular') return perm;
  return (goFileModeFor(n.type, 0) | perm) >>> 0;
}

/** restic formatNode: the path alone, or the long line of `ls -l` / `find -l`. */
export function formatNode(path: string, n: Node, long: boolean): string {
  if (!long) return path;
  const target = n.type === 'symlink' ? ` -> ${n.linkTarget ?? ''}` : '';
  return `${goFileModeString(typedMode(n))} ${String(n.uid).padStart(5)} ${String(n.gid).padStart(5)} ${String(n.size ?? 0).padStart(6)} ${formatLocalTime(n.mtime)} ${path}${target}`;
}

const nonZero = (v: number | bigint | undefined) => (v === undefined || v === 0 || v === 0n ? undefined : v);
const nonEmpty = (v: string | undefined) => (v ? v : undefined);

/** restic find --json's match: path, permissions, then Node's own fields but name, xattrs, device, content and subtree. */
export function findMatchJSON(path: string, n: Node): string {
  const o: Record<string, GoValue> = {
    path: path || undefined,
    permissions: goFileModeString(n.mode ?? 0),
    type: n.type,
    mode: nonZero(n.mode),
    mtime: n.mtime.format(),
    atime: n.atime.format(),
    ctime: n.ctime.format(),
    uid: n.uid,
    gid: n.gid,
    user: nonEmpty(n.user),
    group: nonEmpty(n.group),
    inode: nonZero(n.inode),
    device_id: nonZero(n.deviceId),
    size: nonZero(n.size),
    links: nonZero(n.links),
    linktarget: nonEmpty(n.linkTarget),
    error: nonEmpty(n.error),
  };
  return goStringify(o);
}
