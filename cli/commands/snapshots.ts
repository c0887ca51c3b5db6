import type { Snapshot } from '../../core/data/snapshot';
import { listSnapshots, matches } from '../../core/repository/snapshots';
import type { FlagSpecs } from '../args';
import { openRepository, withLock, type Context } from '../context';
import { formatTime, table } from '../output';
import { snapshotJSON } from '../snapshot-json';

export const summary = 'List all snapshots';

export const flags: FlagSpecs = {
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host' },
  tag: { type: 'strings', help: 'only consider snapshots including tag[,tag,...]' },
  path: { type: 'strings', help: 'only consider snapshots including this (absolute) path' },
  latest: { type: 'int', help: 'only show the last n snapshots for each host and path' },
  compact: { type: 'bool', short: 'c', help: 'use compact output format' },
};

export async function run(ctx: Context): Promise<number> {
  const f = ctx.p.flags;
  const { repo } = await openRepository(ctx);
  let list = await withLock(
    ctx,
    repo,
    false,
    () => listSnapshots(repo, { signal: ctx.signal, onError: (_, e) => ctx.out.stderr(`error: ${(e as Error).message}\n`) }),
    true,
  );
  list = list.filter((e) => matches(e.snapshot, { hosts: f.host as string[], tags: f.tag as string[], paths: f.path as string[] }));
  if (ctx.p.args.length) list = list.filter((e) => ctx.p.args.some((a) => e.id.startsWith(a)));
  const latest = f.latest as number | undefined;
  if (latest !== undefined) {
    const groups = new Map<string, typeof list>();
    for (const e of list) {
      const k = JSON.stringify([e.snapshot.hostname, [...e.snapshot.paths].sort()]);
      groups.set(k, [...(groups.get(k) ?? []), e]);
    }
    list = [...groups.values()].flatMap((g) => g.slice(-latest)).sort((a, b) => a.snapshot.time.compare(b.snapshot.time));
  }
  if (ctx.g.json) {
    ctx.out.stdout(JSON.stringify(list.map((e) => snapshotJSON(e.id, e.snapshot))) + '\n');
    return 0;
  }
  const compact = f.compact === true;
  const headers = compact ? ['ID', 'Time', 'Host', 'Tags'] : ['ID', 'Time', 'Host', 'Tags', 'Paths'];
  const row = (id: string, s: Snapshot) => {
    const r = [id.slice(0, 8), formatTime(s.time), s.hostname ?? '', (s.tags ?? []).join(compact ? ',' : '\n')];
    if (!compact) r.push(s.paths.join('\n'));
    return r;
  };
  ctx.out.stdout(
    table(
      headers,
      list.map((e) => row(e.id, e.snapshot)),
      `${list.length} snapshots`,
    ),
  );
  return 0;
}
