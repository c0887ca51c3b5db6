import { check, parseSubset, type CheckProblem, type Subset } from '../../core/check';
import { CairnError } from '../../core/errors';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { nodeDecodePool } from '../pool/decode-pool';
import os from 'node:os';

export const summary = 'Check the repository for errors';

export const flags = defineFlags({
  'read-data': { type: 'bool', help: 'read all data blobs' },
  'read-data-subset': {
    type: 'string',
    help: "read a subset of data packs, specified as 'n/t' for specific part, or either 'x%' or 'x.y%' or a size in bytes with suffixes k/K, m/M, g/G, t/T for a random subset",
  },
  'check-unused': { type: 'bool', help: 'accepted for restic compatibility (deprecated and ignored, as in restic)' },
  'with-cache': { type: 'bool', help: 'accepted for restic compatibility: cairn keeps no local cache, check always reads from the repository' },
});

/** Packs restic names in `broken_packs` and in its `repair packs` hint: missing, truncated, or with bad data. */
function brokenPacks(problems: CheckProblem[]): string[] {
  const ids = new Set<string>();
  for (const p of problems) {
    if (!p.pack || p.hint) continue;
    if (p.kind === 'pack-size') {
      const m = /got (\d+), expected (\d+)/.exec(p.message);
      if (!m || Number(m[1]) >= Number(m[2])) continue; // only truncated ones, as restic
    }
    if (['pack-missing', 'pack-size', 'pack-hash', 'pack-header', 'blob'].includes(p.kind)) ids.add(p.pack);
  }
  return [...ids].sort();
}

function readDataSubset(ctx: Context<typeof flags>): Subset | undefined {
  const s = ctx.flags['read-data-subset'];
  if (s === undefined || s === '') return undefined;
  if (ctx.flags['read-data'] === true) throw new CairnError('USAGE', 'check flags --read-data and --read-data-subset cannot be used together');
  return parseSubset(s);
}

function printHints(ctx: Context<typeof flags>, errors: CheckProblem[], hints: CheckProblem[], warnings: CheckProblem[], broken: string[]): void {
  for (const h of hints) ctx.out.stdout(`  ${h.message}\n`);
  if (hints.length && !errors.length)
    ctx.out.stdout(
      `${hints.length} additional files were found in the repo, which likely contain duplicate data.\nThis is non-critical, you can run \`restic prune\` to correct this.\n`,
    );
  for (const w of warnings) ctx.out.stderr(`warning: ${w.message}\n`);
  for (const e of errors) ctx.out.stderr(`error: ${e.message}\n`);
  if (broken.length) {
    ctx.out.stderr(
      '\nThe repository contains damaged pack files. These damaged files must be removed to repair the repository. This can be done using the following commands:\n\n' +
        `cairn repair packs ${broken.join(' ')}\ncairn repair snapshots --forget\n\n`,
    );
  }
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const subset = readDataSubset(ctx);
  const say = (s: string) => !ctx.globals.json && !ctx.globals.quiet && ctx.out.stdout(s + '\n');
  const readData = ctx.flags['read-data'] === true;
  // Blobs are verified on one thread per core while this one reads and hashes packs.
  const decoders = readData || subset ? nodeDecodePool() : undefined;
  const result = await withRepository(
    ctx,
    'exclusive',
    ({ repo }) => {
      // The threads start on first use: an empty request starts them now, so they are up by the
      // time the structure checks are done and the first pack is read.
      decoders?.verifyPack(repo.key, new Uint8Array(0), [], ctx.signal).catch(() => {});
      return check(repo, {
        readData,
        readDataSubset: subset,
        verifyPack: decoders?.verifyPack,
        readConcurrency: os.availableParallelism() + 2,
        signal: ctx.signal,
        onMessage: say,
      });
    },
    { announce: true },
  ).finally(() => decoders?.close());
  const errors = result.problems.filter((p) => !p.hint);
  const hints = result.problems.filter((p) => p.kind === 'pack-unreferenced');
  const warnings = result.problems.filter((p) => p.hint && p.kind !== 'pack-unreferenced');
  const broken = brokenPacks(errors);
  ctx.log?.summary({ num_errors: errors.length });
  for (const e of errors) ctx.log?.error(e.message);
  if (ctx.globals.json) {
    for (const e of errors) ctx.out.stderr(JSON.stringify({ message_type: 'error', message: e.message }) + '\n');
    ctx.out.stdout(
      JSON.stringify({
        message_type: 'summary',
        num_errors: errors.length,
        broken_packs: broken.length ? broken : null,
        suggest_repair_index: errors.some((p) => p.kind === 'index'),
        suggest_prune: hints.length > 0,
        problems: result.problems,
      }) + '\n',
    );
  } else printHints(ctx, errors, hints, warnings, broken);
  if (errors.length) {
    ctx.out.stderr('Fatal: repository contains errors\n');
    return 1;
  }
  say('no errors were found');
  return 0;
}
