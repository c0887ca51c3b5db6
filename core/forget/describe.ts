// A policy in plain words, for people who do not read restic's flags (the app's retention
// page, say). restic's own one-line summary is policyString (policy.ts).

import type { Duration } from './duration';
import { COUNT_RULES, WITHIN_RULES, type CountRule, type ForgetPolicy, type WithinRule } from './policy';
import { isZeroDuration } from './duration';

const PERIOD: Record<Exclude<CountRule, 'last'>, [string, string]> = {
  hourly: ['hour', 'hours'],
  daily: ['day', 'days'],
  weekly: ['week (Monday to Sunday)', 'weeks (Monday to Sunday)'],
  monthly: ['month', 'months'],
  yearly: ['year', 'years'],
};

const WITHIN_PERIOD: Record<WithinRule, string> = {
  withinHourly: 'hour',
  withinDaily: 'day',
  withinWeekly: 'week',
  withinMonthly: 'month',
  withinYearly: 'year',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "1 year, 6 months and 12 hours" */
export function durationInWords(d: Duration): string {
  const parts = [
    d.years && plural(d.years, 'year', 'years'),
    d.months && plural(d.months, 'month', 'months'),
    d.days && plural(d.days, 'day', 'days'),
    d.hours && plural(d.hours, 'hour', 'hours'),
  ].filter((x): x is string => !!x);
  return joinWords(parts);
}

function joinWords(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function countRule(rule: CountRule, n: number): string {
  if (rule === 'last') return n === -1 ? 'every snapshot' : n === 1 ? 'the newest snapshot' : `the ${n} newest snapshots`;
  const [one, many] = PERIOD[rule];
  if (n === -1) return `the newest snapshot of every ${one} that has one`;
  return n === 1 ? `the newest snapshot of the most recent ${one} that has one` : `the newest snapshot of each of the ${n} most recent ${many} that have one`;
}

/** restic's HasTags read aloud: a leading '' means "no tags"; a later '' matches nothing. */
function tagRule(list: readonly string[]): string {
  if (list[0] === '') return 'every snapshot without tags';
  if (list.includes('')) return `no snapshot (the tag list ${JSON.stringify(list.join(','))} cannot match)`;
  return `every snapshot tagged ${joinWords(list.map((t) => JSON.stringify(t)))}`;
}

/** The rules of a policy, one phrase each, in restic's order of evaluation. */
export function describeRules(p: ForgetPolicy): string[] {
  const out = p.tags.map(tagRule);
  if (!isZeroDuration(p.within)) out.push(`every snapshot made within ${durationInWords(p.within)} before the newest one`);
  for (const r of COUNT_RULES) if (p[r] !== 0) out.push(countRule(r, p[r]));
  for (const r of WITHIN_RULES) {
    if (!isZeroDuration(p[r])) out.push(`the newest snapshot of each ${WITHIN_PERIOD[r]} within ${durationInWords(p[r])} before the newest one`);
  }
  return out;
}

/** A policy in a few sentences. */
export function describePolicy(p: ForgetPolicy): string {
  const rules = describeRules(p);
  if (rules.length === 0) return 'No rule is set, so nothing would be kept; forget refuses to run without a rule.';
  const counts = COUNT_RULES.some((r) => p[r] !== 0) || WITHIN_RULES.some((r) => !isZeroDuration(p[r]));
  return (
    `In each group, keeps ${joinWords(rules)}. ` +
    (counts ? 'When a group has fewer snapshots than a rule asks for, its oldest snapshot is kept as well. ' : '') +
    'Snapshots dated in the future count as the newest. Everything else is removed.'
  );
}
