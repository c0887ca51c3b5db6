import { CairnError } from '../../core/errors';
import { goFileModeString } from '../../core/data/file-mode';
import type { Node } from '../../core/data/node';
import type { GoTime } from '../../core/data/go-time';
import { walk } from '../../core/walker';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { goStringify } from '../go-json-out';
import { formatNode } from '../node-format';
import { resolveSnapshotArg } from '../snapshot-arg';
import { snapshotJSON } from '../snapshot-json';

export const summary = 'List files in a snapshot';
export const usage = '[flags] snapshotID [dir...]';
export const description = `
The "ls" command lists files and directories in a snapshot.

The special snapshot ID "latest" can be used to list files and
directories of the latest snapshot in the repository. The
--host flag can be used in conjunction to select the latest
snapshot originating from a certain host only.

File listings can optionally be filtered by directories. Any
positional arguments after the snapshot ID are interpreted as
absolute directory paths, and only files inside those directories
will be listed. If the --recursive flag is used, then the filter
will allow traversing into matching directories' subfolders.
Any directory paths specified must be absolute (starting with
a path separator); paths use the forward slash '/' as separator.

File listings can be sorted by specifying --sort followed by one of the
sort specifiers '(name|size|time=mtime|atime|ctime|extension)'.
The sorting can be reversed by specifying --reverse.

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  long: { type: 'bool', short: 'l', help: 'use a long listing format showing size and mode' },
  recursive: { type: 'bool', help: 'include files in subfolders of the listed directories' },
  sort: { type: 'string', short: 's', help: 'sort output by (name|size|time=mtime|atime|ctime|extension)' },
  reverse: { type: 'bool', help: 'reverse sorted output' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host, when snapshot ID "latest" is given (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots which include this taglist, when snapshot ID "latest" is given (can be specified multiple times)' },
  path: {
    type: 'strings',
    help: 'only consider snapshots which include this (absolute) path, when snapshot ID "latest" is given (can be specified multiple times)',
  },
});

/** restic 0.18 lsNodeOutput: size for files only, permissions always, inode when set. */
function nodeJSON(path: string, n: Node): string {
  return goStringify({
    name: n.name,
    type: n.type,
    path,
    uid: n.uid,
    gid: n.gid,
    size: n.type === 'file' ? (n.size ?? 0) : undefined,
    mode: n.mode || undefined,
    permissions: goFileModeString(n.mode ?? 0),
    mtime: n.mtime.format(),
    atime: n.atime.format(),
    ctime: n.ctime.format(),
    inode: n.inode ? n.inode : undefined,
    message_type: 'node',
    struct_type: 'node',
  });
}

/** Go's Time.String(): "2006-01-02 15:04:05.999999999 -0700 MST" in the time's own zone. */
export function goTimeString(t: GoTime): string {
  const s = t.format(); // RFC 3339 with the time's offset
  const m = /^(\d{4,}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) return s;
  const zone = m[4] === 'Z' ? '+0000 UTC' : `${m[4]!.replace(':', '')} ${m[4]!.replace(':', '')}`;
  return `${m[1]} ${m[2]}${m[3] ?? ''} ${zone}`;
}

interface Entry {
  path: string;
  node: Node;
}

const ext = (p: string) => {
  const base = p.slice(p.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot >= 0 ? base.slice(dot) : '';
};
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** restic 0.18 sortedPrinter: a stable sort by the key, then by path; --reverse reverses the result. */
export function sortEntries(list: Entry[], mode: string, reverse: boolean): Entry[] {
  const key: Record<string, ((a: Entry, b: Entry) => number) | null> = {
    name: null,
    size: (a, b) => Math.sign((a.node.type === 'file' ? (a.node.size ?? 0) : 0) - (b.node.type === 'file' ? (b.node.size ?? 0) : 0)),
    mtime: (a, b) => a.node.mtime.compare(b.node.mtime),
    time: (a, b) => a.node.mtime.compare(b.node.mtime),
    atime: (a, b) => a.node.atime.compare(b.node.atime),
    ctime: (a, b) => a.node.ctime.compare(b.node.ctime),
    extension: (a, b) => cmpStr(ext(a.path), ext(b.path)),
  };
  if (!(mode in key))
    throw new CairnError(
      'USAGE',
      `invalid argument "${mode}" for "-s, --sort" flag: invalid sort mode "${mode}", must be one of (name|size|time=mtime|atime|ctime|extension)`,
    );
  const by = key[mode];
  const out = by ? [...list].sort((a, b) => by(a, b) || cmpStr(a.path, b.path)) : [...list];
  return reverse ? out.reverse() : out;
}

/** restic fs.HasPathPrefix on slash paths. */
const hasPrefix = (prefix: string, p: string) => {
  const a = prefix.split('/').filter(Boolean);
  const b = p.split('/').filter(Boolean);
  return a.length <= b.length && a.every((c, i) => c === b[i]);
};

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const [ref, ...dirs] = ctx.args;
  if (!ref) throw new CairnError('USAGE', "no snapshot ID specified, specify snapshot ID or use special ID 'latest'");
  if (dirs.some((d) => !d.startsWith('/'))) throw new CairnError('USAGE', "All path filters must be absolute, starting with a forward slash '/'");
  const f = ctx.flags;
  const sortMode = f.sort ?? 'name';
  const sorted = sortMode !== 'name' || f.reverse === true;
  sortEntries([], sortMode, false);
  await withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      const sn = await resolveSnapshotArg(repo, ref, { hosts: f.host, tags: f.tag, paths: f.path }, ctx.signal);
      const withinDir = (p: string) => dirs.length === 0 || dirs.some((d) => hasPrefix(d, p));
      const approaching = (p: string) => dirs.length === 0 || dirs.some((d) => hasPrefix(p, d));
      const recursive = f.recursive === true;
      const collected: Entry[] = [];
      const print = (e: Entry) => {
        if (ctx.globals.json) ctx.out.stdout(nodeJSON(e.path, e.node) + '\n');
        else ctx.out.stdout(formatNode(e.path, e.node, f.long === true) + '\n');
      };
      if (ctx.globals.json)
        ctx.out.stdout(
          goStringify({ ...(snapshotJSON(sn.id, sn.snapshot) as Record<string, never>), message_type: 'snapshot', struct_type: 'snapshot' }) + '\n',
        );
      else if (!ctx.globals.quiet)
        ctx.out.stdout(
          `snapshot ${sn.id.slice(0, 8)} of [${sn.snapshot.paths.join(' ')}] filtered by [${dirs.join(' ')}] at ${goTimeString(sn.snapshot.time)}):\n`,
        );
      const enter = (p: string) => (withinDir(p) && recursive) || approaching(p);
      for await (const { path, node } of walk(repo, sn.tree, { signal: ctx.signal, anyName: true, enter: (it) => enter('/' + it.path.join('/')) })) {
        const p = '/' + path.join('/');
        if (!withinDir(p)) continue;
        if (sorted) collected.push({ path: p, node });
        else print({ path: p, node });
      }
      for (const e of sorted ? sortEntries(collected, sortMode, f.reverse === true) : []) print(e);
    },
    { loadIndex: true },
  );
  return 0;
}
