// `cairn forget`: restic 0.18's forget — remove snapshots by a retention policy applied to
// each group of snapshots (core/forget), or the snapshots given by ID; --dry-run shows what
// would go. Holds restic's exclusive lock. Space is freed by prune (--prune hands over to it).

import { GoTime, localZone, type ZoneRules } from '../../core/data/go-time';
import { CairnError } from '../../core/errors';
import {
  applyPolicy,
  checkGroups,
  checkPolicy,
  parseGroupBy,
  parsePolicy,
  policyString,
  POLICY_OPTIONS,
  removedIDs,
  removeSnapshots,
  type ForgetGroup,
  type ForgetPolicy,
  type GroupBy,
  type PolicyInput,
} from '../../core/forget';
import type { ID } from '../../core/id';
import { findSnapshot, listSnapshots, matches, type SnapshotEntry, type SnapshotFilter } from '../../core/repository/snapshots';
import type { Repository } from '../../core/repository/repository';
import { formatDuration } from '../../core/progress';
import { defineFlags, type FlagSpec, type FlagValues } from '../args';
import { withRepository, type Context } from '../context';
import { forgetGroupText, forgetJSON, idSetText } from '../forget-output';
import { errorLine } from '../output';
import { pruneCliOptions, pruneFlags, pruneRepository } from './prune';

export const summary = 'Remove snapshots from the repository';

type PolicyOption = (typeof POLICY_OPTIONS)[number];

/** restic's --keep-* flags: a list for --keep-tag, text for the others (counts may be 'unlimited'). */
type PolicyFlags = { readonly [O in PolicyOption as O['flag']]: FlagSpec<O['field'] extends 'tags' ? 'strings' : 'string'> };

/** The --keep-* flags from core's table of policy options, which holds their names and help. */
const POLICY_FLAGS = Object.fromEntries(
  POLICY_OPTIONS.map((o) => [o.flag, { type: o.field === 'tags' ? 'strings' : 'string', help: o.help, ...('short' in o ? { short: o.short } : {}) }]),
) as PolicyFlags;

export const flags = defineFlags({
  ...POLICY_FLAGS,
  'unsafe-allow-remove-all': { type: 'bool', help: 'allow deleting all snapshots of a snapshot group' },
  host: { type: 'strings', help: 'only consider snapshots for this host (can be specified multiple times) (default: $RESTIC_HOST)' },
  hostname: { type: 'strings', help: 'deprecated: use --host' },
  tag: { type: 'strings', help: 'only consider snapshots including tag[,tag,...] (can be specified multiple times)' },
  path: { type: 'strings', help: 'only consider snapshots including this (absolute) path (can be specified multiple times)' },
  compact: { type: 'bool', short: 'c', help: 'use compact output format' },
  'group-by': { type: 'string', short: 'g', help: "group snapshots by host, paths and/or tags, separated by comma (disable grouping with '')" },
  'dry-run': { type: 'bool', short: 'n', help: 'do not delete anything, just print what would be done' },
  prune: { type: 'bool', help: "automatically run the 'prune' command if snapshots have been removed" },
  ...pruneFlags,
});

/** What forget's flags ask for (restic parses all of it before opening the repository). */
export interface ForgetRequest {
  policy: ForgetPolicy;
  filter: SnapshotFilter;
  groupBy: GroupBy;
  allowRemoveAll: boolean;
}

function policyInput(f: FlagValues<PolicyFlags>): PolicyInput {
  return {
    keepLast: f['keep-last'],
    keepHourly: f['keep-hourly'],
    keepDaily: f['keep-daily'],
    keepWeekly: f['keep-weekly'],
    keepMonthly: f['keep-monthly'],
    keepYearly: f['keep-yearly'],
    keepWithin: f['keep-within'],
    keepWithinHourly: f['keep-within-hourly'],
    keepWithinDaily: f['keep-within-daily'],
    keepWithinWeekly: f['keep-within-weekly'],
    keepWithinMonthly: f['keep-within-monthly'],
    keepWithinYearly: f['keep-within-yearly'],
    keepTag: f['keep-tag'],
  };
}

export function forgetRequest(f: FlagValues<typeof flags>, env: NodeJS.ProcessEnv): ForgetRequest {
  // --host defaults to $RESTIC_HOST (restic 0.18.1)
  const given = [...(f.hostname ?? []), ...(f.host ?? [])];
  const hosts = given.length ? given : env.RESTIC_HOST ? [env.RESTIC_HOST] : [];
  return {
    policy: parsePolicy(policyInput(f)),
    filter: { hosts, tags: f.tag ?? [], paths: f.path ?? [] },
    groupBy: parseGroupBy(f['group-by'] ?? 'host,paths'),
    allowRemoveAll: f['unsafe-allow-remove-all'] === true,
  };
}

const isFiltered = (f: SnapshotFilter) => !!(f.hosts?.length || f.tags?.length || f.paths?.length);

/** The policy applied to the snapshots the filters select (restic's refusal of an empty policy first). */
export function planForget(req: ForgetRequest, all: readonly SnapshotEntry[], now: GoTime, zone?: ZoneRules): ForgetGroup[] {
  checkPolicy(req.policy, { allowRemoveAll: req.allowRemoveAll, filtered: isFiltered(req.filter) });
  const selected = all.filter((e) => matches(e.snapshot, req.filter));
  return applyPolicy(selected, req.policy, now, { groupBy: req.groupBy, zone });
}

/** restic's SnapshotFilter.FindAll for explicit arguments: IDs (prefixes) and `latest` (which alone uses the filters). */
async function findExplicit(ctx: Context<typeof flags>, repo: Repository, filter: SnapshotFilter): Promise<ID[]> {
  const ids = new Set<ID>();
  let usedFilter = false;
  for (const arg of ctx.args) {
    if (arg.includes(':')) throw new CairnError('USAGE', `${arg}: <snapshot>:<subfolder> syntax not allowed`);
    if (arg === 'latest' && usedFilter) continue;
    usedFilter ||= arg === 'latest';
    ids.add((await findSnapshot(repo, arg, arg === 'latest' ? filter : {}, ctx.signal)).id);
  }
  if (!usedFilter && isFiltered(filter)) throw new CairnError('USAGE', 'explicit snapshot ids are given');
  return [...ids];
}

/** Applies the policy: prints restic's report and returns the IDs it removes. */
async function decide(ctx: Context<typeof flags>, repo: Repository, req: ForgetRequest): Promise<ID[]> {
  const all = await listSnapshots(repo, { signal: ctx.signal });
  const groups = planForget(req, all, GoTime.fromDate(new Date()), localZone);
  if (!ctx.globals.json && !ctx.globals.quiet) ctx.out.stdout(`Applying Policy: ${policyString(req.policy)}\n`);
  checkGroups(groups, req.policy);
  if (!ctx.globals.json) {
    const opts = { compact: ctx.flags.compact === true, verbose: ctx.globals.verbose, quiet: ctx.globals.quiet };
    for (const g of groups) ctx.out.stdout(forgetGroupText(g, opts));
  } else if (groups.length) {
    ctx.out.stdout(forgetJSON(groups));
  }
  return removedIDs(groups);
}

/** Removes the snapshot files (restic: a counter "files deleted"); returns restic's exit code. */
async function remove(ctx: Context<typeof flags>, repo: Repository, ids: readonly ID[]): Promise<number> {
  const started = Date.now();
  let removed = 0;
  const failed = await removeSnapshots(repo, ids, {
    signal: ctx.signal,
    onRemoved: () => void removed++,
    onError: (id) => ctx.out.stderr(`unable to remove snapshots/${id} from the repository\n`),
  });
  if (!ctx.globals.json && !ctx.globals.quiet) {
    ctx.out.stdout(`[${formatDuration((Date.now() - started) / 1000)}] 100.00%  ${removed} / ${ids.length} files deleted\n`);
  }
  if (failed.length === 0) return 0;
  ctx.out.stderr(errorLine(new CairnError('BACKEND_IO', 'failed to remove one or more snapshots')) + '\n');
  return 3;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const f = ctx.flags;
  const req = forgetRequest(f, ctx.globals.env);
  // Checked before the repository is opened, with or without --prune (restic's verifyPruneOptions).
  const pruneOptions = pruneCliOptions(f, ctx.globals.compression);
  const dryRun = f['dry-run'] === true;
  if (ctx.globals.noLock && !dryRun) throw new CairnError('USAGE', '--no-lock is only applicable in combination with --dry-run for forget command');
  return withRepository(
    ctx,
    'exclusive',
    async ({ repo }) => {
      const ids = ctx.args.length ? await findExplicit(ctx, repo, req.filter) : await decide(ctx, repo, req);
      if (ids.length === 0) return 0;
      const say = (s: string) => !ctx.globals.json && !ctx.globals.quiet && ctx.out.stdout(s);
      if (dryRun) say(`Would have removed the following snapshots:\n${idSetText(ids)}\n\n`);
      const code = dryRun ? 0 : await remove(ctx, repo, ids);
      if (code !== 0 || f.prune !== true) return code;
      say(dryRun ? `${ids.length} snapshots would be removed, running prune dry run\n` : `${ids.length} snapshots have been removed, running prune\n`);
      // Under forget's lock; a dry run's plan counts the snapshots it would have removed as gone.
      return pruneRepository(ctx, repo, { ...pruneOptions, dryRun, ignoreSnapshots: new Set(ids) });
    },
    { silent: !ctx.out.isTTY, noLock: dryRun && ctx.globals.noLock },
  );
}
