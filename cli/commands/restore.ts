import path from 'node:path';
import { CairnError } from '../../core/errors';
import { findSnapshot } from '../../core/repository/snapshots';
import { restore } from '../../core/restorer';
import { parsePattern } from '../../core/filter/pattern';
import { lookupPath, splitPath } from '../../core/walker';
import type { FlagSpecs } from '../args';
import { openRepository, withLock, type Context } from '../context';
import { nodeRestoreTarget } from '../adapters/node-restore-target';
import { nodeDecodePool } from '../pool/decode-pool';
import { terminalProgress } from '../progress';
import { formatBytes } from '../output';

export const summary = 'Extract the data from a snapshot';

export const flags: FlagSpecs = {
  target: { type: 'string', short: 't', help: 'directory to extract data to' },
  include: { type: 'strings', short: 'i', help: 'include a pattern, exclude everything else' },
  exclude: { type: 'strings', short: 'e', help: 'exclude a pattern' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host when the snapshot ID is "latest"' },
  tag: { type: 'strings', help: 'only consider snapshots which include this tag[,tag,...] for snapshot ID "latest"' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path for snapshot ID "latest"' },
  verify: { type: 'bool', help: 'accepted for restic compatibility: every blob is always verified against its hash' },
};

export async function run(ctx: Context): Promise<number> {
  const f = ctx.p.flags;
  const arg = ctx.p.args[0];
  if (!arg) throw new CairnError('USAGE', 'no snapshot ID specified, specify snapshot ID or use special ID "latest"');
  if (ctx.p.args.length > 1) throw new CairnError('USAGE', 'more than one snapshot ID specified');
  const target = f.target as string | undefined;
  if (!target) throw new CairnError('USAGE', 'please specify a directory to restore to (--target)');
  const colon = arg.indexOf(':');
  const ref = colon >= 0 ? arg.slice(0, colon) : arg;
  const sub = colon >= 0 ? splitPath(arg.slice(colon + 1)) : [];
  const { repo } = await openRepository(ctx);
  const code = await withLock(
    ctx,
    repo,
    false,
    async () => {
      await repo.loadIndex({ signal: ctx.signal });
      const { id, snapshot } = await findSnapshot(repo, ref, { hosts: f.host as string[], tags: f.tag as string[], paths: f.path as string[] }, ctx.signal);
      let tree = snapshot.tree;
      if (sub.length) {
        const node = await lookupPath(repo, snapshot.tree, sub, ctx.signal);
        if (!node || node.type !== 'dir' || !node.subtree)
          throw new CairnError('USAGE', `path /${sub.join('/')} not found in snapshot ${id.slice(0, 8)} or not a directory`);
        tree = node.subtree;
      }
      if (!ctx.g.quiet && !ctx.g.json)
        ctx.out.stdout(
          `restoring <Snapshot ${id.slice(0, 8)} of [${snapshot.paths.join(' ')}] at ${snapshot.time.format()} by ${snapshot.username ?? ''}@${snapshot.hostname ?? ''}> to ${path.resolve(target)}\n`,
        );
      const started = Date.now();
      const decoders = nodeDecodePool();
      const result = await restore(repo, tree, nodeRestoreTarget(path.resolve(target)), {
        decodePack: decoders.decodePack,
        include: ((f.include as string[] | undefined) ?? []).map(parsePattern),
        exclude: ((f.exclude as string[] | undefined) ?? []).map(parsePattern),
        pathPrefix: sub,
        signal: ctx.signal,
        onProgress: ctx.g.quiet ? undefined : terminalProgress(ctx.out, ctx.g.json),
      }).finally(() => decoders.close());
      for (const e of result.errors) {
        ctx.log?.error(`${e.code}: ${e.message}`, e.path);
        if (ctx.g.json) ctx.out.stderr(JSON.stringify({ message_type: 'error', error: { message: e.message }, during: 'restore', item: e.path }) + '\n');
        else ctx.out.stderr(`ignoring error for ${e.path}: ${e.code}: ${e.message}\n`);
      }
      const secs = (Date.now() - started) / 1000;
      ctx.log?.summary({ snapshot_id: id, seconds_elapsed: secs, files_restored: result.files, total_bytes: result.bytes });
      if (ctx.g.json) {
        ctx.out.stdout(
          JSON.stringify({
            message_type: 'summary',
            seconds_elapsed: secs,
            files_restored: result.files,
            total_bytes: result.bytes,
            errors: result.errors.length,
          }) + '\n',
        );
      } else if (!ctx.g.quiet) {
        ctx.out.stdout(`Summary: Restored ${result.files} files/dirs (${formatBytes(result.bytes)}) in ${secs.toFixed(1)}s\n`);
      }
      if (result.errors.length) {
        ctx.out.stderr(`Fatal: There were ${result.errors.length} errors\n`);
        return 1;
      }
      return 0;
    },
    true,
  );
  return code;
}
