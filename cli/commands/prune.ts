// `cairn prune` (restic 0.18 cmd_prune.go): removes data no snapshot uses, under an
// exclusive lock. Prints restic's steps and statistics (restic's -v lines with -v; with
// --json one summary object, restic 0.19's); --dry-run plans and prints without changing
// anything (and with --no-lock takes no lock). `pruneRepository` is the part after open and
// lock, for `forget --prune`.

import { CairnError } from '../../core/errors';
import type { ID } from '../../core/id';
import { executePrune, parseMaxUnused, parseRepackSmallerThan, parseSize, planPrune, type PruneOptions, type PruneProgress } from '../../core/prune';
import type { CompressionMode } from '../../core/repository/blob-codec';
import type { Repository } from '../../core/repository/repository';
import { defineFlags, type FlagValues } from '../args';
import { withRepository, type Context } from '../context';
import { pruneProgress, pruneStatsJSON, pruneStatsText } from '../prune-output';

export const summary = 'Remove unneeded data from the repository';

/** The flags `forget --prune` takes too (restic's AddLimitedFlags). */
export const pruneFlags = defineFlags({
  'max-unused': {
    type: 'string',
    help: 'tolerate given limit of unused data (absolute value in bytes with suffixes k/K, m/M, g/G, t/T, a value in % or the word \'unlimited\') (default "5%")',
  },
  'max-repack-size': { type: 'string', help: 'stop after repacking this much data in total (allowed suffixes for size: k/K, m/M, g/G, t/T)' },
  'repack-cacheable-only': { type: 'bool', help: 'only repack packs which are cacheable' },
  'repack-small': { type: 'bool', help: 'repack pack files below 80% of target pack size' },
  'repack-uncompressed': { type: 'bool', help: 'repack all uncompressed data' },
  'repack-smaller-than': { type: 'string', help: 'pack below-limit packfiles (allowed suffixes: k/K, m/M)' },
});

export const flags = defineFlags({
  ...pruneFlags,
  'dry-run': { type: 'bool', short: 'n', help: 'do not modify the repository, just print what would be done' },
});

export interface PruneCliOptions extends PruneOptions {
  dryRun: boolean;
  /** Snapshots to count as gone (forget --prune: the ones it has just removed). */
  ignoreSnapshots?: ReadonlySet<ID>;
}

/** The prune flags of a command line (prune's or forget's), checked as restic checks them. */
export function pruneCliOptions(f: FlagValues<typeof flags>, compression: CompressionMode): PruneCliOptions {
  const opts: PruneCliOptions = {
    dryRun: f['dry-run'] === true,
    maxUnused: parseMaxUnused(f['max-unused'] ?? '5%'),
    repackCacheableOnly: f['repack-cacheable-only'] === true,
    repackSmall: f['repack-small'] === true,
    repackUncompressed: f['repack-uncompressed'] === true,
  };
  if (f['max-repack-size'] !== undefined) opts.maxRepackBytes = parseSize(f['max-repack-size']);
  if (f['repack-smaller-than'] !== undefined) opts.repackSmallerThan = parseRepackSmallerThan(f['repack-smaller-than']);
  if (opts.repackUncompressed && compression === 'off') {
    throw new CairnError('USAGE', 'disabled compression and `--repack-uncompressed` are mutually exclusive');
  }
  return opts;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const opts = pruneCliOptions(ctx.flags, ctx.globals.compression);
  if (ctx.globals.noLock && !opts.dryRun) throw new CairnError('USAGE', '--no-lock is only applicable in combination with --dry-run for prune command');
  return withRepository(ctx, 'exclusive', ({ repo }) => pruneRepository(ctx, repo, opts), { noLock: opts.dryRun && ctx.globals.noLock });
}

/**
 * Plans, prints the statistics and (unless a dry run) prunes an open repository whose
 * exclusive lock the caller holds. Returns the exit code.
 */
export async function pruneRepository(ctx: Context, repo: Repository, opts: PruneCliOptions): Promise<number> {
  const text = !ctx.globals.json && !ctx.globals.quiet;
  const say = (s: string) => text && ctx.out.stdout(s + '\n');
  const verbose = (s: string) => text && ctx.globals.verbose && ctx.out.stdout(s + '\n');
  const progress = text ? pruneProgress(ctx.out, say) : undefined;
  const onProgress = (p: PruneProgress) => progress?.(p);
  const plan = await planPrune(repo, { ...opts, signal: ctx.signal, onProgress });
  for (const w of plan.warnings) ctx.out.stderr(w + '\n');
  if (opts.dryRun) say('\nWould have made the following changes:');
  if (ctx.globals.json) ctx.out.stdout(JSON.stringify(pruneStatsJSON(plan.stats)) + '\n');
  else if (!ctx.globals.quiet) ctx.out.stdout(pruneStatsText(plan.stats, ctx.globals.verbose));
  if (opts.dryRun) {
    const set = (ids: readonly ID[]) =>
      `{${[...ids]
        .sort()
        .map((id) => id.slice(0, 8))
        .join(' ')}}`;
    verbose('Repeated prune dry-runs can report slightly different amounts of data to keep or repack. This is expected behavior.\n');
    if (plan.packs.removeUnreferenced.length) verbose(`Would have removed the following unreferenced packs:\n${set(plan.packs.removeUnreferenced)}\n`);
    verbose(`Would have repacked and removed the following packs:\n${set(plan.packs.repack)}\n`);
    verbose(`Would have removed the following no longer used packs:\n${set(plan.packs.remove)}\n`);
    return 0;
  }
  const result = await executePrune(plan, { signal: ctx.signal, onProgress, onWarning: (w) => ctx.out.stderr(w + '\n') });
  if (result.packsNotDeleted.length) {
    ctx.out.stderr(`${result.packsNotDeleted.length} packs could not be removed; the next prune removes them\n`);
  }
  return 0;
}
