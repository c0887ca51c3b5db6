import { CairnError } from '../../core/errors';
import { goFileModeString } from '../../core/data/file-mode';
import type { Node } from '../../core/data/node';
import { findSnapshot } from '../../core/repository/snapshots';
import { walk } from '../../core/walker';
import type { FlagSpecs } from '../args';
import { openRepository, withLock, type Context } from '../context';
import { formatTime } from '../output';
import { snapshotJSON } from '../snapshot-json';

export const summary = 'List files in a snapshot';

export const flags: FlagSpecs = {
  long: { type: 'bool', short: 'l', help: 'use a long listing format showing size and mode' },
  recursive: { type: 'bool', help: 'include files in subfolders of the listed directories' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host, when snapshot ID "latest" is given' },
  tag: { type: 'strings', help: 'only consider snapshots including tag[,tag,...], when snapshot ID "latest" is given' },
  path: { type: 'strings', help: 'only consider snapshots including this (absolute) path, when snapshot ID "latest" is given' },
};

function nodeJSON(path: string, n: Node): Record<string, unknown> {
  const o: Record<string, unknown> = { name: n.name, type: n.type, path, uid: n.uid, gid: n.gid };
  if (n.type === 'file') o.size = n.size ?? 0;
  if (n.mode !== undefined) {
    o.mode = n.mode;
    o.permissions = goFileModeString(n.mode);
  }
  o.mtime = n.mtime.format();
  o.atime = n.atime.format();
  o.ctime = n.ctime.format();
  o.struct_type = 'node';
  return o;
}

export async function run(ctx: Context): Promise<number> {
  const [ref, ...dirs] = ctx.p.args;
  if (!ref) throw new CairnError('USAGE', 'no snapshot ID specified, specify snapshot ID or use special ID "latest"');
  const f = ctx.p.flags;
  const { repo } = await openRepository(ctx);
  await withLock(
    ctx,
    repo,
    false,
    async () => {
      await repo.loadIndex({ signal: ctx.signal });
      const { id, snapshot } = await findSnapshot(repo, ref, { hosts: f.host as string[], tags: f.tag as string[], paths: f.path as string[] }, ctx.signal);
      const filters = dirs.map((d) => '/' + d.split('/').filter(Boolean).join('/'));
      const recursive = f.recursive === true || filters.length === 0;
      const wanted = (p: string) => {
        if (filters.length === 0) return true;
        return filters.some((d) => {
          if (p === d) return true;
          if (!p.startsWith(d === '/' ? '/' : d + '/')) return false;
          return recursive || !p.slice(d.length + 1).includes('/');
        });
      };
      const mayEnter = (p: string) =>
        filters.length === 0 || filters.some((d) => d === '/' || d.startsWith(p + '/') || d === p || (recursive && p.startsWith(d + '/')));
      if (ctx.g.json) ctx.out.stdout(JSON.stringify({ ...snapshotJSON(id, snapshot), struct_type: 'snapshot' }) + '\n');
      else ctx.out.stdout(`snapshot ${id.slice(0, 8)} of [${snapshot.paths.join(' ')}] filtered by [${dirs.join(' ')}] at ${snapshot.time.format()}):\n`);
      for await (const { path, node } of walk(repo, snapshot.tree, { signal: ctx.signal, enter: (it) => mayEnter('/' + it.path.join('/')) })) {
        const p = '/' + path.join('/');
        if (!wanted(p)) continue;
        if (ctx.g.json) ctx.out.stdout(JSON.stringify(nodeJSON(p, node)) + '\n');
        else if (f.long) {
          const mode = node.mode !== undefined ? goFileModeString(node.mode) : '?---------';
          ctx.out.stdout(
            `${mode} ${String(node.uid).padStart(5)} ${String(node.gid).padStart(5)} ${String(node.size ?? 0).padStart(12)} ${formatTime(node.mtime)} ${p}\n`,
          );
        } else ctx.out.stdout(p + '\n');
      }
    },
    true,
  );
  return 0;
}
