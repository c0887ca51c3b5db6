import { CairnError } from '../../core/errors';
import { listSnapshots, findSnapshot, matches, type SnapshotEntry } from '../../core/repository/snapshots';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { goStringify } from '../go-json-out';
import { formatLocalTime } from '../node-format';
import { resticTable } from '../restic-table';
import { snapshotJSON } from '../snapshot-json';

export const summary = 'List all snapshots';
export const usage = '[flags] [snapshotID ...]';
export const description = `
The "snapshots" command lists all snapshots stored in the repository.

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots which include this taglist in the format `tag[,tag,...]` (can be specified multiple times)' },
  path: { type: 'strings', help: 'only consider snapshots for this path (can be specified multiple times)' },
  latest: { type: 'int', help: 'only show the last n snapshots for each host and path' },
  compact: { type: 'bool', short: 'c', help: 'use compact output format' },
  'group-by': { type: 'string', short: 'g', help: 'group snapshots by host, paths and/or tags, separated by comma' },
});

interface GroupKey {
  hostname: string;
  paths: string[] | null;
  tags: string[] | null;
}

/** restic GroupSnapshots: the key of each snapshot as restic's JSON, groups in first-seen order. */
export function groupSnapshots(list: SnapshotEntry[], by: string): { groups: Map<string, { key: GroupKey; list: SnapshotEntry[] }>; grouped: boolean } {
  const opt = { host: false, paths: false, tags: false };
  for (const o of by.split(',')) {
    if (o === 'host' || o === 'hosts') opt.host = true;
    else if (o === 'path' || o === 'paths') opt.paths = true;
    else if (o === 'tag' || o === 'tags') opt.tags = true;
    else if (o !== '') throw new CairnError('USAGE', `unknown grouping option: '${o}'`);
  }
  const groups = new Map<string, { key: GroupKey; list: SnapshotEntry[] }>();
  for (const e of list) {
    // restic sorts the snapshot's own paths (and its tags when grouping by them) in place,
    // so they are printed sorted too.
    e.snapshot.paths.sort();
    if (opt.tags) e.snapshot.tags?.sort();
    const key: GroupKey = {
      hostname: opt.host ? (e.snapshot.hostname ?? '') : '',
      paths: opt.paths ? [...e.snapshot.paths].sort() : null,
      tags: opt.tags && e.snapshot.tags ? [...e.snapshot.tags].sort() : null,
    };
    const k = goStringify({ hostname: key.hostname, paths: key.paths, tags: key.tags });
    const g = groups.get(k) ?? { key, list: [] };
    g.list.push(e);
    groups.set(k, g);
  }
  return { groups, grouped: opt.host || opt.paths || opt.tags };
}

const newestFirst = (l: SnapshotEntry[]) => [...l].sort((a, b) => b.snapshot.time.compare(a.snapshot.time));

/** restic --latest n: per host and path set (or per group when grouped), the n newest. */
function latest(list: SnapshotEntry[], n: number, grouped: boolean): SnapshotEntry[] {
  const sorted = newestFirst(list);
  if (grouped) return sorted.slice(0, n);
  const seen = new Map<string, number>();
  return sorted.filter((e) => {
    const k = JSON.stringify([e.snapshot.hostname ?? '', [...e.snapshot.paths].sort().join('|')]);
    const c = seen.get(k) ?? 0;
    seen.set(k, c + 1);
    return c < n;
  });
}

function groupHeader(key: GroupKey): string {
  const info: string[] = [];
  if (key.hostname) info.push(`host [${key.hostname}]`);
  if (key.tags) info.push(`tags [${key.tags.join(', ')}]`);
  if (key.paths) info.push(`paths [${key.paths.join(', ')}]`);
  return info.length ? `snapshots for (${info.join(', ')}):\n` : '';
}

/** restic 0.14 PrintSnapshots: oldest first; Host and Tags headers padded as restic pads them. */
export function snapshotsTable(list: SnapshotEntry[], compact: boolean): string {
  const sorted = [...list].sort((a, b) => a.snapshot.time.compare(b.snapshot.time));
  const multiline = !compact && sorted.some((e) => e.snapshot.paths.length > 1);
  const headers = compact ? ['ID', 'Time', 'Host', 'Tags  '] : ['ID', 'Time', 'Host      ', 'Tags      ', 'Paths'];
  const rows = sorted.map(({ id, snapshot: s }) => {
    const r = [id.slice(0, 8), formatLocalTime(s.time), s.hostname ?? '', (s.tags ?? []).join(compact ? '\n' : ',')];
    if (!compact) r.push(s.paths.join('\n'));
    return r;
  });
  return resticTable(headers, rows, [`${sorted.length} snapshots`], multiline);
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const f = ctx.flags;
  const filter = { hosts: f.host, tags: f.tag, paths: f.path };
  let list = await withRepository(ctx, 'read', async ({ repo }) => {
    if (ctx.args.length) {
      const out: SnapshotEntry[] = [];
      for (const a of ctx.args) out.push(await findSnapshot(repo, a, filter, ctx.signal));
      return out;
    }
    const onError = (id: string, e: unknown) => {
      const message = (e as Error).message;
      const name = `snapshot ${id.slice(0, 8)}`;
      ctx.out.stderr(`error: ${message.startsWith(name) ? message : `${name}: ${message}`}\n`);
    };
    return (await listSnapshots(repo, { signal: ctx.signal, onError })).filter((e) => matches(e.snapshot, filter));
  });
  const { groups, grouped } = groupSnapshots(list, f['group-by'] ?? '');
  const n = f.latest;
  // restic sorts with sort.Reverse over its newest-first order: oldest first.
  const oldestFirst = (l: SnapshotEntry[]) => newestFirst(l).reverse();
  for (const g of groups.values()) g.list = oldestFirst(n !== undefined && n > 0 ? latest(g.list, n, grouped) : g.list);
  if (ctx.globals.json) {
    const json = (l: SnapshotEntry[]) => l.map((e) => snapshotJSON(e.id, e.snapshot));
    if (!grouped) list = [...groups.values()].flatMap((g) => g.list);
    const out = grouped ? [...groups.values()].map((g) => ({ group_key: g.key, snapshots: json(g.list) })) : json(list);
    ctx.out.stdout(JSON.stringify(out) + '\n');
    return 0;
  }
  for (const g of groups.values()) {
    if (grouped) ctx.out.stdout(groupHeader(g.key));
    ctx.out.stdout(snapshotsTable(g.list, f.compact === true));
  }
  return 0;
}
