// `cairn restore`: restic 0.18's restore command (cmd/restic/cmd_restore.go) — snapshot or
// snapshot:subfolder into --target, include/exclude pattern families, --dry-run, --overwrite,
// --delete, --verify, restic's text and JSON output. Exit 1 when anything was not restored.

import path from 'node:path';
import { CairnError } from '../../core/errors';
import { findSnapshot } from '../../core/repository/snapshots';
import type { Repository } from '../../core/repository/repository';
import { OVERWRITE_MODES, restore, type RestoreOptions, type RestoreResult } from '../../core/restorer';
import { lookupPath, splitPath } from '../../core/walker';
import { defineFlags, oneOf } from '../args';
import { withRepository, type Context } from '../context';
import { nodeRestoreTarget } from '../adapters/node-restore-target';
import { nodeDecodePool } from '../pool/decode-pool';
import { collectPatterns, EXCLUDE_FLAGS, INCLUDE_FLAGS } from '../pattern-options';
import { errorMessage, goDuration, goTimeString, itemLine, restoreProgress, resultState, summaryFields, summaryLine, summaryMessage } from '../restore-output';

export const summary = 'Extract the data from a snapshot';

export const flags = defineFlags({
  target: { type: 'string', short: 't', help: 'directory to extract data to' },
  ...EXCLUDE_FLAGS,
  ...INCLUDE_FLAGS,
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host when the snapshot ID is "latest"' },
  tag: { type: 'strings', help: 'only consider snapshots which include this tag[,tag,...] for snapshot ID "latest"' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path for snapshot ID "latest"' },
  'dry-run': { type: 'bool', help: 'do not write any data, just show what would be done' },
  verify: { type: 'bool', help: 'verify restored files content' },
  overwrite: { type: 'string', help: 'overwrite behavior, one of (always|if-changed|if-newer|never) (default always)' },
  delete: { type: 'bool', help: "delete files from target directory if they do not exist in snapshot. Use '--dry-run -v' to check what would be deleted" },
});

interface Request {
  ref: string;
  sub: string[];
  target: string;
  options: RestoreOptions;
}

/** The command line as restic checks it, in restic's order and words. */
function parseRequest(ctx: Context<typeof flags>): Request {
  const f = ctx.flags;
  const exclude = collectPatterns('exclude', f, ctx.globals.env);
  const include = collectPatterns('include', f, ctx.globals.env);
  const args = ctx.args;
  if (args.length === 0) throw new CairnError('USAGE', 'no snapshot ID specified');
  if (args.length > 1) throw new CairnError('USAGE', `more than one snapshot ID specified: [${args.join(' ')}]`);
  const target = f.target ?? '';
  if (!target) throw new CairnError('USAGE', 'please specify a directory to restore to (--target)');
  const hasExcludes = exclude.patterns.length + exclude.insensitive.length > 0;
  const hasIncludes = include.patterns.length + include.insensitive.length > 0;
  if (hasExcludes && hasIncludes) throw new CairnError('USAGE', 'exclude and include patterns are mutually exclusive');
  const dryRun = f['dry-run'] === true;
  if (dryRun && f.verify === true) throw new CairnError('USAGE', '--dry-run and --verify are mutually exclusive');
  if (f.delete === true && path.resolve(target) === '/' && !hasExcludes && !hasIncludes)
    throw new CairnError('USAGE', "'--target / --delete' must be combined with an include or exclude filter");
  const overwriteText = f.overwrite ?? 'always';
  const overwrite = oneOf(OVERWRITE_MODES, overwriteText);
  if (!overwrite)
    throw new CairnError(
      'USAGE',
      `invalid argument "${overwriteText}" for "--overwrite" flag: invalid overwrite behavior "${overwriteText}", must be one of (always|if-changed|if-newer|never)`,
    );
  const colon = args[0]!.indexOf(':');
  return {
    ref: colon >= 0 ? args[0]!.slice(0, colon) : args[0]!,
    sub: colon >= 0 ? splitPath(args[0]!.slice(colon + 1)) : [],
    target,
    options: {
      include: include.patterns,
      iinclude: include.insensitive,
      exclude: exclude.patterns,
      iexclude: exclude.insensitive,
      dryRun,
      verify: f.verify === true,
      overwrite,
      delete: f.delete === true,
    },
  };
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const req = parseRequest(ctx);
  return withRepository(ctx, 'read', ({ repo }) => restoreSnapshot(ctx, repo, req), { loadIndex: true });
}

async function restoreSnapshot(ctx: Context<typeof flags>, repo: Repository, req: Request): Promise<number> {
  const f = ctx.flags;
  const { json, quiet } = ctx.globals;
  const { id, snapshot } = await findSnapshot(repo, req.ref, { hosts: f.host, tags: f.tag, paths: f.path }, ctx.signal);
  let tree = snapshot.tree;
  if (req.sub.length) {
    const node = await lookupPath(repo, snapshot.tree, req.sub, ctx.signal);
    if (!node || node.type !== 'dir' || !node.subtree)
      throw new CairnError('USAGE', `path /${req.sub.join('/')} not found in snapshot ${id.slice(0, 8)} or not a directory`);
    tree = node.subtree;
  }
  if (!quiet && !json)
    ctx.out.stdout(
      `restoring snapshot ${id.slice(0, 8)} of [${snapshot.paths.join(' ')}] at ${goTimeString(snapshot.time)} by ${snapshot.username ?? ''}@${snapshot.hostname ?? ''} to ${req.target}\n`,
    );
  const started = Date.now();
  let verifying = 0;
  const decoders = nodeDecodePool();
  const result = await restore(repo, tree, nodeRestoreTarget(path.resolve(req.target), { replaceFolders: req.options.delete }), {
    ...req.options,
    decodePack: decoders.decodePack,
    signal: ctx.signal,
    onProgress: quiet ? undefined : restoreProgress(ctx.out, json),
    onItem: ctx.globals.verbose ? (item) => ctx.out.stdout(itemLine(item, json)) : undefined,
    onVerify: () => {
      verifying = Date.now();
      if (!json && !quiet) ctx.out.stdout(`verifying files in ${req.target}\n`);
    },
  }).finally(() => decoders.close());
  return report(
    ctx,
    result,
    { id, target: req.target },
    { restoreSeconds: ((verifying || Date.now()) - started) / 1000, verifyMs: verifying && Date.now() - verifying },
  );
}

/** Errors, summary, the verification's outcome, and the exit code. */
function report(
  ctx: Context,
  result: RestoreResult,
  { id, target }: { id: string; target: string },
  times: { restoreSeconds: number; verifyMs: number },
): number {
  const { json, quiet } = ctx.globals;
  for (const e of result.errors) {
    ctx.log?.error(`${e.code}: ${e.message}`, e.path);
    ctx.out.stderr(errorMessage(e.path, e.code, e.message, json));
  }
  const state = resultState(result);
  ctx.log?.summary({ snapshot_id: id, ...summaryFields(state, times.restoreSeconds) });
  if (json) ctx.out.stdout(summaryMessage(state, times.restoreSeconds));
  else if (!quiet) ctx.out.stdout(summaryLine(state, times.restoreSeconds));
  if (result.verified !== undefined && !json && !quiet && result.errors.length === 0)
    ctx.out.stdout(`finished verifying ${result.verified} files in ${target} (took ${goDuration(times.verifyMs)})\n`);
  if (result.errors.length === 0) return 0;
  // The damaged files by name, once each (a file that failed is not left in the target).
  const heading = result.verified === undefined ? 'Not restored:' : 'Not as in the snapshot:';
  if (!json) ctx.out.stderr(`${heading}\n${[...new Set(result.errors.map((e) => e.path))].map((p) => `  ${p}\n`).join('')}`);
  ctx.out.stderr(`Fatal: There were ${result.errors.length} errors\n`);
  return 1;
}
