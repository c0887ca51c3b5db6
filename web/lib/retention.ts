// A plan's retention rules, named and meant as restic's `forget --keep-*` flags, and applying
// them after each successful backup of the plan. A plan keeps its rules as numbers (the plan
// editor's fields); the Retention page and the engine take restic's option values
// (core/forget's PolicyInput): `policyOf()` below is the one conversion between the two, and
// the rules are checked by the engine's own parser (restic's rules), so both read them alike.

import { parsePolicy, policyString, type PolicyInput } from '../../core/forget';
import type { ForgetRequest, ForgetResultView } from '../../workers/api';
import { failedRecord, forgetRecords, type HistoryRecord, type OperationContext } from './history';
import { describeError, type Described } from './messages';

export interface RetentionRules {
  /** --keep-last n */
  keepLast?: number;
  keepHourly?: number;
  keepDaily?: number;
  keepWeekly?: number;
  keepMonthly?: number;
  keepYearly?: number;
  /** --keep-within, restic's duration: "1y2m3d4h" (years, months, days, hours). */
  keepWithin?: string;
  /** --keep-tag: snapshots with any of these tags are always kept. */
  keepTags?: string[];
}

export const COUNT_RULES = [
  ['keepLast', 'Last', 'the newest snapshots'],
  ['keepHourly', 'Hourly', 'the last snapshot of each of the newest hours'],
  ['keepDaily', 'Daily', 'the last snapshot of each of the newest days'],
  ['keepWeekly', 'Weekly', 'the last snapshot of each of the newest weeks'],
  ['keepMonthly', 'Monthly', 'the last snapshot of each of the newest months'],
  ['keepYearly', 'Yearly', 'the last snapshot of each of the newest years'],
] as const satisfies readonly (readonly [keyof RetentionRules, string, string])[];

/** restic's duration for --keep-within: one or more of <n>y <n>m <n>d <n>h, in that order. */
const DURATION = /^(?:(\d+)y)?(?:(\d+)m)?(?:(\d+)d)?(?:(\d+)h)?$/;

export function retentionProblem(r: RetentionRules): string | undefined {
  for (const [key, label] of COUNT_RULES) {
    const n = r[key];
    if (n !== undefined && (!Number.isInteger(n) || n < 0)) return `“${label}” must be a whole number (0 or more).`;
  }
  if (r.keepWithin && !DURATION.test(r.keepWithin)) return '“Within” is a duration such as 30d, 6m or 1y2m (years, months, days, hours).';
  try {
    parsePolicy(policyOf(r)); // what the engine will read: restic's own rules
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/**
 * A plan's rules as restic's forget options (the Retention page's and the engine's form): a count
 * of 0 or none sets no rule (restic's default), each tag is one --keep-tag.
 */
export function policyOf(r: RetentionRules): PolicyInput {
  const out: PolicyInput = {};
  for (const [k] of COUNT_RULES) if ((r[k] ?? 0) > 0) out[k] = String(r[k]);
  if (r.keepWithin) out.keepWithin = r.keepWithin;
  if (r.keepTags?.length) out.keepTag = [...r.keepTags];
  return out;
}

/** Whether any rule is set (a plan without rules keeps every snapshot). */
export function hasRetention(r: RetentionRules): boolean {
  return COUNT_RULES.some(([k]) => (r[k] ?? 0) > 0) || !!r.keepWithin || (r.keepTags?.length ?? 0) > 0;
}

/** The rules in restic's own spelling ("--keep-daily 7 --keep-weekly 4"). */
export function describeRetention(r: RetentionRules): string {
  const flag = (k: string) => '--' + k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
  const parts: string[] = [];
  for (const [k] of COUNT_RULES) if ((r[k] ?? 0) > 0) parts.push(`${flag(k)} ${r[k]}`);
  if (r.keepWithin) parts.push(`--keep-within ${r.keepWithin}`);
  for (const t of r.keepTags ?? []) parts.push(`--keep-tag ${t}`);
  return parts.length ? parts.join(' ') : 'keep every snapshot';
}

/** What applying the rules did: the history records it made (forget, and prune when it ran). */
export interface RetentionOutcome {
  records: HistoryRecord[];
  removed: number;
  bytesFreed?: number;
  /** Why the forget, or the prune after it, failed (or was cancelled). */
  error?: Described;
}

/**
 * The plan's scope: restic's `forget --host H --path P… --tag T… --group-by host,paths`, kept to
 * the one group whose paths are exactly the plan's (so a snapshot of more folders, or another
 * host's, is never touched by this plan), and to snapshots carrying every tag of the plan.
 */
export function planForgetRequest(ctx: { rules: RetentionRules; hostname: string; paths: string[]; tags: string[] }): ForgetRequest {
  return { policy: policyOf(ctx.rules), group: { host: ctx.hostname, paths: [...ctx.paths], tags: [...ctx.tags] }, prune: true };
}

/**
 * Applies a plan's retention rules after a successful backup of that plan: forget, then prune
 * when snapshots were removed, through the engine's `forget` (the Retention page's call), and
 * the history records of both (or of the failure). Called by the plan runner
 * (../state/runner.svelte.ts) in the same queued operation, so nothing else of this page runs
 * on the repository meanwhile. Resolves with undefined when the plan has no rules.
 */
export async function applyRetentionAfterBackup(ctx: {
  rules: RetentionRules;
  hostname: string;
  paths: string[];
  tags: string[];
  /** The history context of the forget (the plan, its trigger); `start` is taken here. */
  op: Omit<OperationContext, 'start'>;
  forget: (req: ForgetRequest) => Promise<ForgetResultView>;
  now?: () => number;
}): Promise<RetentionOutcome | undefined> {
  if (!hasRetention(ctx.rules)) return undefined;
  const now = ctx.now ?? Date.now;
  const op: OperationContext = { ...ctx.op, start: now() };
  const subject = policyString(parsePolicy(policyOf(ctx.rules)));
  try {
    const r = await ctx.forget(planForgetRequest(ctx));
    const pruneError = r.pruneError ? describeError(r.pruneError) : undefined;
    const records = forgetRecords(op, now(), r, subject, pruneError);
    return { records, removed: r.removed.length, bytesFreed: r.pruned?.bytesFreed, error: pruneError };
  } catch (e) {
    const error = describeError(e);
    return { records: [failedRecord(op, 'forget', now(), error, subject)], removed: 0, error };
  }
}
