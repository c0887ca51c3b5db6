// A plan's retention rules, named and meant as restic's `forget --keep-*` flags. Until the
// forget/prune engine is part of the app, a plan keeps its rules and applies none:
// applyRetentionAfterBackup() below is the one place the plan runner calls after each
// successful backup of a plan, and where applying them belongs.

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
  return undefined;
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

/** What applying the rules did: the history entries it made (forget, and prune if it ran). */
export interface RetentionOutcome {
  forgotten: string[];
  kept: string[];
}

/**
 * Applies a plan's retention rules after a successful backup of that plan. Called by the plan
 * runner (../state/runner.svelte.ts) inside the same queued operation, with the repository
 * still open and nothing else running on it, so a forget here cannot overlap another
 * operation of this page. The group is restic's default for forget: this host name and the
 * plan's folder paths (`--group-by host,paths`), narrowed to the plan's tags when it has any.
 *
 * Not applied yet: the forget/prune engine is not part of the app. Until it is, nothing is
 * removed and this resolves with undefined; the plan keeps its rules.
 */
export async function applyRetentionAfterBackup(_ctx: {
  rules: RetentionRules;
  hostname: string;
  paths: string[];
  tags: string[];
  snapshotId: string;
  signal: AbortSignal;
}): Promise<RetentionOutcome | undefined> {
  return undefined;
}
