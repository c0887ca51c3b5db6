// restic's per-group decision (internal/data/snapshot_policy.go ApplyPolicy, restic 0.18):
// one walk over the group from newest to oldest; a snapshot is kept when any rule keeps it.
//  - --keep-tag lists and --keep-within keep whatever matches, without counting.
//  - Count rules (last, hourly, daily, weekly, monthly, yearly): each remembers the period of
//    the last snapshot it kept; a snapshot in a different period is kept and uses up one of
//    the rule's N (-1: unlimited). So each rule keeps the newest snapshot of each of the N
//    most recent periods that have snapshots, and one snapshot may count for several rules.
//  - --keep-within-{hourly,…}: the same per period, without a count, for snapshots newer
//    than the window's start.
//  - The "oldest" rule (0.16+): the group's oldest snapshot is kept by every count rule that
//    has count left and every within-rule whose window holds it, even when a newer snapshot
//    already stands for its period; such a match reads "oldest …" (0.18).
// Windows end at `latest`, the newest snapshot that is not in the future, so a snapshot made
// in the future is inside every window.

import { GoTime, type ZoneRules } from '../data/go-time';
import { hasTags, type SnapshotEntry } from '../repository/snapshots';
import { dayBucket, eachBucket, hourBucket, monthBucket, weekBucket, yearBucket, type Bucket } from './buckets';
import { formatDuration, isZeroDuration, windowStart, type Duration } from './duration';
import { formatTagList, type CountRule, type ForgetPolicy, type WithinRule } from './policy';

export interface KeepReason {
  entry: SnapshotEntry;
  /** restic's "matches": "last snapshot", "daily within 7d", "oldest monthly snapshot", "has tags [a]" … */
  matches: string[];
}

/** Newest first, as restic lists them; `reasons` pairs with `keep`. */
export interface GroupDecision {
  keep: SnapshotEntry[];
  remove: SnapshotEntry[];
  reasons: KeepReason[];
}

export interface DecideOptions {
  /** the moment the policy is applied (snapshots after it are "in the future") */
  now: GoTime;
  /**
   * The zone of the machine applying the policy (Go's time.Local). restic reads a stored
   * time whose offset that zone has at that instant as a time in that zone, and then moves
   * the window start by the zone's rules across a DST change; any other time keeps its fixed
   * offset. Without it every offset is fixed (restic run with TZ=UTC).
   */
  zone?: ZoneRules;
}

const COUNTED: [CountRule, Bucket, string][] = [
  ['last', eachBucket, 'last snapshot'],
  ['hourly', hourBucket, 'hourly snapshot'],
  ['daily', dayBucket, 'daily snapshot'],
  ['weekly', weekBucket, 'weekly snapshot'],
  ['monthly', monthBucket, 'monthly snapshot'],
  ['yearly', yearBucket, 'yearly snapshot'],
];

const WITHIN: [WithinRule, Bucket, string][] = [
  ['withinHourly', hourBucket, 'hourly within'],
  ['withinDaily', dayBucket, 'daily within'],
  ['withinWeekly', weekBucket, 'weekly within'],
  ['withinMonthly', monthBucket, 'monthly within'],
  ['withinYearly', yearBucket, 'yearly within'],
];

/** Newest first; equal times by ID (restic keeps its listing order there, which varies). */
export function newestFirst(entries: readonly SnapshotEntry[]): SnapshotEntry[] {
  return [...entries].sort((a, b) => b.snapshot.time.compare(a.snapshot.time) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** restic's findLatestTimestamp: the newest time before `now`, or Go's zero time if none. */
export function latestTime(entries: readonly SnapshotEntry[], now: GoTime): GoTime {
  let latest = GoTime.zero;
  for (const e of entries) {
    const t = e.snapshot.time;
    if (t.compare(latest) > 0 && t.compare(now) < 0) latest = t;
  }
  return latest;
}

/** Where a window `d` long ending at `latest` starts, with Go's choice of zone for latest. */
function startOf(latest: GoTime, d: Duration, zone: ZoneRules | undefined): GoTime {
  // Go's time.Parse: a numeric offset that the local zone has at that instant gives a time in
  // the local zone; "Z" (every zero offset restic and Cairn write) gives UTC.
  const local = zone && latest.offset !== 0 && zone(latest.sec) === latest.offset ? zone : undefined;
  return windowStart(latest, d, local);
}

interface Rule {
  bucket: Bucket;
  reason: string;
  last: number;
  count: number; // count rules: left to keep (-1 unlimited); within rules: unused
  start?: GoTime; // within rules: the window's start
  suffix: string;
}

function rulesOf(policy: ForgetPolicy, latest: GoTime, zone: ZoneRules | undefined): { counted: Rule[]; within: Rule[] } {
  const counted = COUNTED.filter(([f]) => policy[f] !== 0).map(([f, bucket, reason]) => ({ bucket, reason, last: -1, count: policy[f], suffix: '' }));
  const within = WITHIN.filter(([f]) => !isZeroDuration(policy[f])).map(([f, bucket, reason]) => ({
    bucket,
    reason,
    last: -1,
    count: 0,
    start: startOf(latest, policy[f], zone),
    suffix: ` ${formatDuration(policy[f])}`,
  }));
  return { counted, within };
}

/** Whether `rule` keeps the snapshot at `nr` of `size` (and its bookkeeping for that). */
function bucketMatch(rule: Rule, t: GoTime, nr: number, size: number): string | undefined {
  if (rule.count === 0 && !rule.start) return undefined; // count used up
  if (rule.start && t.compare(rule.start) <= 0) return undefined;
  const v = rule.bucket(t, nr);
  const oldest = nr === size - 1;
  if (v === rule.last && !oldest) return undefined;
  const label = v === rule.last ? `oldest ${rule.reason}` : rule.reason;
  rule.last = v;
  if (rule.count > 0) rule.count--;
  return label + rule.suffix;
}

export function decideGroup(entries: readonly SnapshotEntry[], policy: ForgetPolicy, opts: DecideOptions): GroupDecision {
  const list = newestFirst(entries);
  const out: GroupDecision = { keep: [], remove: [], reasons: [] };
  if (list.length === 0) return out;
  const latest = latestTime(list, opts.now);
  const { counted, within } = rulesOf(policy, latest, opts.zone);
  const withinStart = isZeroDuration(policy.within) ? undefined : startOf(latest, policy.within, opts.zone);
  list.forEach((entry, nr) => {
    const t = entry.snapshot.time;
    const matches = policy.tags.filter((l) => hasTags(entry.snapshot.tags, l)).map((l) => `has tags ${formatTagList(l)}`);
    if (withinStart && t.compare(withinStart) > 0) matches.push(`within ${formatDuration(policy.within)}`);
    for (const rule of [...counted, ...within]) {
      const m = bucketMatch(rule, t, nr, list.length);
      if (m) matches.push(m);
    }
    if (matches.length) {
      out.keep.push(entry);
      out.reasons.push({ entry, matches });
    } else {
      out.remove.push(entry);
    }
  });
  return out;
}
