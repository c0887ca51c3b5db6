import { CairnError } from '../../core/errors';
import type { ID } from '../../core/id';
import { childMayMatch, matchPattern, parsePattern, type Pattern } from '../../core/filter/pattern';
import type { SnapshotEntry } from '../../core/repository/snapshots';
import type { Repository } from '../../core/repository/repository';
import { walk } from '../../core/walker';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { findFiltered } from '../snapshot-filter';
import { parseFindTime } from '../find-time';
import { FindOutput } from '../find-output';

export const summary = 'Find a file, a directory or restic IDs';
export const usage = '[flags] PATTERN...';
export const description = `
The "find" command searches for files or directories in snapshots stored in the
repo.
It can also be used to search for restic blobs or trees for troubleshooting.
The default sort option for the snapshots is youngest to oldest. To sort the
output from oldest to youngest specify --reverse.

Examples:
cairn find config.json
cairn find --json "*.yml" "*.json"
cairn find --json --blob 420f620f b46ebe8a ddd38656
cairn find --show-pack-id --blob 420f620f
cairn find --tree 577c2bc9 f81f2e22 a62827a9
cairn find --pack 025c1d06

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  oldest: { type: 'string', short: 'O', help: 'oldest modification date/time' },
  newest: { type: 'string', short: 'N', help: 'newest modification date/time' },
  snapshot: { type: 'strings', short: 's', help: 'snapshot id to search in (can be given multiple times)' },
  blob: { type: 'bool', help: 'pattern is a blob-ID' },
  tree: { type: 'bool', help: 'pattern is a tree-ID' },
  pack: { type: 'bool', help: 'pattern is a pack-ID' },
  'show-pack-id': { type: 'bool', help: 'display the pack-ID the blobs belong to (with --blob or --tree)' },
  'ignore-case': { type: 'bool', short: 'i', help: 'ignore case for pattern' },
  reverse: { type: 'bool', short: 'R', help: 'reverse sort order oldest to newest' },
  long: { type: 'bool', short: 'l', help: 'use a long listing format showing size and mode' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host, when no snapshot ID is given (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots which include this taglist, when no snapshot-ID is given' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path, when no snapshot-ID is given' },
});

interface PatternSearch {
  patterns: Pattern[];
  ignoreCase: boolean;
  oldest?: number;
  newest?: number;
}

/** restic Finder.findInSnapshot: every node whose path a pattern matches, within the mtime bounds. */
async function findInSnapshot(repo: Repository, sn: SnapshotEntry, q: PatternSearch, out: FindOutput, signal: AbortSignal): Promise<void> {
  const matched = (path: string[]) => q.patterns.some((p) => matchPattern(p, q.ignoreCase ? path.map((c) => c.toLowerCase()) : path));
  out.snapshot(sn);
  for await (const { path, node } of walk(repo, sn.snapshot.tree, {
    signal,
    anyName: true,
    enter: (it) => matched(it.path) || q.patterns.some((p) => childMayMatch(p, q.ignoreCase ? it.path.map((c) => c.toLowerCase()) : it.path)),
  })) {
    if (!matched(path)) continue;
    const mtime = node.mtime.unixMillis();
    if (q.oldest !== undefined && mtime < q.oldest) continue;
    if (q.newest !== undefined && mtime > q.newest) continue;
    out.match('/' + path.join('/'), node);
  }
}

interface IdSearch {
  blobs: Set<string>;
  trees: Set<string>;
  treesFound: number;
}

const hit = (set: Set<string>, id: ID) => set.has(id) || set.has(id.slice(0, 8));

/** restic Finder.findIDs: files holding the blobs, folders whose tree is one of the trees. */
async function findIDs(repo: Repository, sn: SnapshotEntry, q: IdSearch, out: FindOutput, signal: AbortSignal): Promise<void> {
  const parents = new Map<string, ID>([['', sn.snapshot.tree]]);
  const foundTree = (id: ID, path: string) => {
    if (!hit(q.trees, id)) return false;
    out.object('tree', id, path, '', sn);
    return ++q.treesFound >= q.trees.size && q.blobs.size === 0;
  };
  if (foundTree(sn.snapshot.tree, '/')) return;
  for await (const { path, node } of walk(repo, sn.snapshot.tree, { signal, anyName: true })) {
    const where = '/' + path.join('/');
    if (node.type === 'dir' && node.subtree) {
      parents.set(path.join('\0'), node.subtree);
      if (q.trees.size && foundTree(node.subtree, where)) return;
    }
    if (node.type !== 'file' || !q.blobs.size) continue;
    for (const id of node.content ?? []) {
      if (!q.blobs.has(id)) {
        if (!q.blobs.has(id.slice(0, 8))) continue;
        q.blobs.delete(id.slice(0, 8));
        q.blobs.add(id);
      }
      out.object('blob', id, where, parents.get(path.slice(0, -1).join('\0')) ?? '', sn);
    }
  }
}

/** restic packsToBlobs, from the index: the blobs of the given packs (full or 8-character IDs). */
function packBlobs(repo: Repository, packs: string[], q: IdSearch): void {
  const wanted = new Set(packs);
  const found = new Set<string>();
  for (const b of repo.index.entries()) {
    const key = wanted.has(b.packID) ? b.packID : wanted.has(b.packID.slice(0, 8)) ? b.packID.slice(0, 8) : undefined;
    if (key === undefined) continue;
    found.add(key);
    (b.type === 'tree' ? q.trees : q.blobs).add(b.id);
  }
  const missing = packs.filter((p) => !found.has(p)).sort();
  if (missing.length) throw new CairnError('NOT_FOUND', `unable to find pack(s): [${missing.join(' ')}]`);
}

async function selectSnapshots(ctx: Context<typeof flags>, repo: Repository): Promise<SnapshotEntry[]> {
  const f = ctx.flags;
  const list = await findFiltered(repo, f.snapshot ?? [], { hosts: f.host, tags: f.tag, paths: f.path }, ctx.signal);
  const dir = f.reverse === true ? 1 : -1;
  return list.sort((a, b) => dir * a.snapshot.time.compare(b.snapshot.time));
}

function patternSearch(ctx: Context<typeof flags>, args: string[]): PatternSearch {
  const f = ctx.flags;
  const ignoreCase = f['ignore-case'] === true;
  const q: PatternSearch = { patterns: args.map((a) => parsePattern(ignoreCase ? a.toLowerCase() : a)), ignoreCase };
  if (f.oldest !== undefined) q.oldest = parseFindTime(f.oldest);
  if (f.newest !== undefined) q.newest = parseFindTime(f.newest);
  if (q.oldest !== undefined && q.newest !== undefined && q.oldest > q.newest) throw new CairnError('USAGE', '--oldest must specify a time before --newest');
  return q;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const args = ctx.args;
  const f = ctx.flags;
  if (args.length === 0) throw new CairnError('USAGE', 'wrong number of arguments');
  const q = patternSearch(ctx, args);
  const kinds = [f.blob, f.tree, f.pack].filter((x) => x === true).length;
  if (kinds > 1) throw new CairnError('USAGE', 'cannot have several ID types');
  await withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      const ids: IdSearch = { blobs: new Set(f.blob ? args : []), trees: new Set(f.tree ? args : []), treesFound: 0 };
      if (f.pack) packBlobs(repo, args, ids);
      const out = new FindOutput(ctx, f.long === true);
      const byID = kinds > 0;
      for (const sn of await selectSnapshots(ctx, repo)) {
        if (byID) await findIDs(repo, sn, ids, out, ctx.signal);
        else await findInSnapshot(repo, sn, q, out, ctx.signal);
      }
      out.finish();
      if (f['show-pack-id'] === true && byID) out.packsOf(repo, ids.blobs, ids.trees);
    },
    { loadIndex: true },
  );
  return 0;
}
