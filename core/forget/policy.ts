// The retention policy of restic's `forget` (internal/data/snapshot_policy.go ExpirePolicy,
// cmd/restic/cmd_forget.go): what each --keep-* option holds, how its text is read, and the
// "Applying Policy: …" line restic prints for it.

import { CairnError } from '../errors';
import { formatDuration, isZeroDuration, parseDuration, ZERO_DURATION, type Duration } from './duration';

export const COUNT_RULES = ['last', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;
export type CountRule = (typeof COUNT_RULES)[number];
export const WITHIN_RULES = ['withinHourly', 'withinDaily', 'withinWeekly', 'withinMonthly', 'withinYearly'] as const;
export type WithinRule = (typeof WITHIN_RULES)[number];

/** restic's ExpirePolicy. A snapshot is kept when any rule keeps it. */
export interface ForgetPolicy extends Record<CountRule, number>, Record<WithinRule, Duration> {
  /** keep everything made within this long before the newest snapshot */
  within: Duration;
  /** keep snapshots that have every tag of one of these lists; [''] matches untagged ones */
  tags: string[][];
}

/** What a user types: restic's option values as text (counts may also be numbers; -1 = unlimited). */
export interface PolicyInput {
  keepLast?: string | number;
  keepHourly?: string | number;
  keepDaily?: string | number;
  keepWeekly?: string | number;
  keepMonthly?: string | number;
  keepYearly?: string | number;
  keepWithin?: string;
  keepWithinHourly?: string;
  keepWithinDaily?: string;
  keepWithinWeekly?: string;
  keepWithinMonthly?: string;
  keepWithinYearly?: string;
  /** each entry one --keep-tag value: tags separated by commas */
  keepTag?: readonly string[];
}

/** Each policy field with its PolicyInput key and restic's flag. */
export const POLICY_OPTIONS = [
  { field: 'last', input: 'keepLast', flag: 'keep-last', short: 'l', help: "keep the last n snapshots (use 'unlimited' to keep all snapshots)" },
  {
    field: 'hourly',
    input: 'keepHourly',
    flag: 'keep-hourly',
    short: 'H',
    help: "keep the last n hourly snapshots (use 'unlimited' to keep all hourly snapshots)",
  },
  { field: 'daily', input: 'keepDaily', flag: 'keep-daily', short: 'd', help: "keep the last n daily snapshots (use 'unlimited' to keep all daily snapshots)" },
  {
    field: 'weekly',
    input: 'keepWeekly',
    flag: 'keep-weekly',
    short: 'w',
    help: "keep the last n weekly snapshots (use 'unlimited' to keep all weekly snapshots)",
  },
  {
    field: 'monthly',
    input: 'keepMonthly',
    flag: 'keep-monthly',
    short: 'm',
    help: "keep the last n monthly snapshots (use 'unlimited' to keep all monthly snapshots)",
  },
  {
    field: 'yearly',
    input: 'keepYearly',
    flag: 'keep-yearly',
    short: 'y',
    help: "keep the last n yearly snapshots (use 'unlimited' to keep all yearly snapshots)",
  },
  {
    field: 'within',
    input: 'keepWithin',
    flag: 'keep-within',
    help: 'keep snapshots that are newer than duration (eg. 1y5m7d2h) relative to the latest snapshot',
  },
  {
    field: 'withinHourly',
    input: 'keepWithinHourly',
    flag: 'keep-within-hourly',
    help: 'keep hourly snapshots that are newer than duration relative to the latest snapshot',
  },
  {
    field: 'withinDaily',
    input: 'keepWithinDaily',
    flag: 'keep-within-daily',
    help: 'keep daily snapshots that are newer than duration relative to the latest snapshot',
  },
  {
    field: 'withinWeekly',
    input: 'keepWithinWeekly',
    flag: 'keep-within-weekly',
    help: 'keep weekly snapshots that are newer than duration relative to the latest snapshot',
  },
  {
    field: 'withinMonthly',
    input: 'keepWithinMonthly',
    flag: 'keep-within-monthly',
    help: 'keep monthly snapshots that are newer than duration relative to the latest snapshot',
  },
  {
    field: 'withinYearly',
    input: 'keepWithinYearly',
    flag: 'keep-within-yearly',
    help: 'keep yearly snapshots that are newer than duration relative to the latest snapshot',
  },
  { field: 'tags', input: 'keepTag', flag: 'keep-tag', help: 'keep snapshots with this taglist (can be specified multiple times)' },
] as const;

export function emptyPolicy(): ForgetPolicy {
  const p = { tags: [] as string[][], within: { ...ZERO_DURATION } } as ForgetPolicy;
  for (const r of COUNT_RULES) p[r] = 0;
  for (const r of WITHIN_RULES) p[r] = { ...ZERO_DURATION };
  return p;
}

/** restic's ExpirePolicy.Empty: no rule set, so the policy would keep nothing. */
export function isEmptyPolicy(p: ForgetPolicy): boolean {
  return p.tags.length === 0 && COUNT_RULES.every((r) => p[r] === 0) && isZeroDuration(p.within) && WITHIN_RULES.every((r) => isZeroDuration(p[r]));
}

function bad(flag: string, value: string | number, reason: string): never {
  throw new CairnError('BAD_POLICY', `invalid argument ${JSON.stringify(String(value))} for --${flag}: ${reason}`, { detail: { option: flag, value } });
}

/**
 * A --keep-{last,hourly,…} value as restic 0.17+ reads it: `unlimited` is -1 (keep all),
 * otherwise a base-10 integer (Go's strconv.ParseInt: optional sign, digits) that is not
 * negative. A number (from a form) may be -1 for unlimited.
 */
export function parseCount(value: string | number, flag = 'keep-last'): number {
  if (typeof value === 'number') {
    if (value === -1 || (Number.isSafeInteger(value) && value >= 0)) return value;
    return bad(flag, value, Number.isInteger(value) ? "negative values not allowed, use 'unlimited' instead" : 'not an integer');
  }
  if (value === 'unlimited') return -1;
  if (!/^[+-]?[0-9]+$/.test(value)) bad(flag, value, `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n > 9223372036854775807n || n < -9223372036854775808n) bad(flag, value, `strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  if (n < 0n) bad(flag, value, "negative values not allowed, use 'unlimited' instead");
  return Number(n);
}

/** A --keep-within* value: restic's ParseDuration, and no negative parts. */
export function parseWithin(value: string, flag = 'keep-within'): Duration {
  let d: Duration;
  try {
    d = parseDuration(value);
  } catch (e) {
    return bad(flag, value, (e as Error).message);
  }
  if (d.years < 0 || d.months < 0 || d.days < 0 || d.hours < 0) {
    bad(flag, value, 'durations containing negative values are not allowed for --keep-within*');
  }
  return d;
}

/** restic's splitTagList: comma-separated tags, white space around each one dropped. */
export function splitTagList(value: string): string[] {
  return value.split(',').map((t) => t.trim());
}

export function parsePolicy(input: PolicyInput): ForgetPolicy {
  const p = emptyPolicy();
  for (const o of POLICY_OPTIONS) {
    const v = input[o.input];
    if (v === undefined) continue;
    if (o.field === 'tags') p.tags = (v as readonly string[]).map(splitTagList);
    else if (o.field === 'within' || o.field.startsWith('within')) p[o.field as 'within' | WithinRule] = parseWithin(String(v), o.flag);
    else p[o.field as CountRule] = parseCount(v as string | number, o.flag);
  }
  return p;
}

/** restic's TagList.String: "[a, b]". */
export function formatTagList(tags: readonly string[]): string {
  return `[${tags.join(', ')}]`;
}

const COUNT_WORDS: Record<CountRule, string> = { last: 'latest', hourly: 'hourly', daily: 'daily', weekly: 'weekly', monthly: 'monthly', yearly: 'yearly' };

/** restic 0.18's ExpirePolicy.String, printed as "Applying Policy: …". */
export function policyString(p: ForgetPolicy): string {
  const keeps = COUNT_RULES.filter((r) => p[r] !== 0).map((r) => (p[r] === -1 ? `all ${COUNT_WORDS[r]}` : `${p[r]} ${COUNT_WORDS[r]}`));
  const keepw = WITHIN_RULES.filter((r) => !isZeroDuration(p[r])).map((r) => `${r.slice(6).toLowerCase()} snapshots within ${formatDuration(p[r])}`);
  let s = keeps.length ? `${keeps.join(', ')} snapshots` : '';
  if (keepw.length) s += (s ? ', ' : '') + keepw.join(', ');
  if (p.tags.length) s += (s ? ' and ' : '') + `all snapshots with tags [${p.tags.map(formatTagList).join(' ')}]`;
  if (!isZeroDuration(p.within)) s += (s ? ' and ' : '') + `all snapshots within ${formatDuration(p.within)} of the newest`;
  return s ? `keep ${s}` : 'remove';
}
