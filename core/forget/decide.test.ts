import { describe, expect, it } from 'vitest';
import { GoTime } from '../data/go-time';
import { decideGroup, latestTime, newestFirst } from './decide';
import { parsePolicy, type PolicyInput } from './policy';
import { entry, idOf, labels } from '../../test/helpers/snapshot-entries';

const NOW = GoTime.parse('2025-01-15T12:00:00Z');

// Europe/Berlin in 2024 (see go-time.test.ts)
const berlin2024 = (sec: number) => (sec >= Date.UTC(2024, 2, 31, 1) / 1000 && sec < Date.UTC(2024, 9, 27, 1) / 1000 ? 7200 : 3600);

interface Case {
  name: string;
  policy: PolicyInput;
  /** [label, time as stored, tags?] in any order */
  snapshots: [string, string, string[]?][];
  /** what is kept, newest first, with restic's reasons; everything else is removed */
  keep: [string, string[]][];
  zone?: (sec: number) => number;
}

const DAYS: Case['snapshots'] = [
  ['d5b', '2024-12-05T18:00:00+01:00'],
  ['d5a', '2024-12-05T09:00:00+01:00'],
  ['d3', '2024-12-03T12:00:00+01:00'],
  ['d2b', '2024-12-02T20:00:00+01:00'],
  ['d2a', '2024-12-02T08:00:00+01:00'],
];

const CASES: Case[] = [
  {
    name: 'keep-last keeps the N newest',
    policy: { keepLast: 2 },
    snapshots: DAYS,
    keep: [
      ['d5b', ['last snapshot']],
      ['d5a', ['last snapshot']],
    ],
  },
  {
    name: 'keep-daily keeps the newest of each day that has snapshots',
    policy: { keepDaily: 2 },
    snapshots: DAYS,
    keep: [
      ['d5b', ['daily snapshot']],
      ['d3', ['daily snapshot']],
    ],
  },
  {
    name: 'oldest rule: a count left over keeps the oldest snapshot even in a kept day',
    policy: { keepDaily: 5 },
    snapshots: DAYS,
    keep: [
      ['d5b', ['daily snapshot']],
      ['d3', ['daily snapshot']],
      ['d2b', ['daily snapshot']],
      ['d2a', ['oldest daily snapshot']],
    ],
  },
  {
    name: 'oldest rule: no count left, no oldest',
    policy: { keepDaily: 3 },
    snapshots: DAYS,
    keep: [
      ['d5b', ['daily snapshot']],
      ['d3', ['daily snapshot']],
      ['d2b', ['daily snapshot']],
    ],
  },
  {
    name: 'oldest rule: the oldest in a period of its own is an ordinary match',
    policy: { keepDaily: 9 },
    snapshots: [...DAYS.slice(0, 3), ['d1', '2024-12-01T10:00:00+01:00']],
    keep: [
      ['d5b', ['daily snapshot']],
      ['d3', ['daily snapshot']],
      ['d1', ['daily snapshot']],
    ],
  },
  {
    name: 'unlimited keeps one per period for ever, plus the oldest',
    policy: { keepDaily: 'unlimited', keepLast: 1 },
    snapshots: DAYS,
    keep: [
      ['d5b', ['last snapshot', 'daily snapshot']],
      ['d3', ['daily snapshot']],
      ['d2b', ['daily snapshot']],
      ['d2a', ['oldest daily snapshot']],
    ],
  },
  {
    name: 'keep-last unlimited keeps everything',
    policy: { keepLast: -1 },
    snapshots: DAYS.slice(0, 3),
    keep: [
      ['d5b', ['last snapshot']],
      ['d5a', ['last snapshot']],
      ['d3', ['last snapshot']],
    ],
  },
  {
    name: 'one snapshot counts for several rules',
    policy: { keepDaily: 1, keepWeekly: 1, keepMonthly: 2, keepYearly: 1 },
    snapshots: [
      ['dec', '2024-12-05T18:00:00+01:00'],
      ['nov', '2024-11-30T18:00:00+01:00'],
      ['nov2', '2024-11-02T18:00:00+01:00'],
    ],
    keep: [
      ['dec', ['daily snapshot', 'weekly snapshot', 'monthly snapshot', 'yearly snapshot']],
      ['nov', ['monthly snapshot']],
    ],
  },
  {
    name: 'tags: a list needs all its tags, any list will do, [""] means untagged; tags use no count',
    policy: { keepTag: ['a,b', 'c', ''], keepLast: 1 },
    snapshots: [
      ['ab', '2024-12-05T00:00:00Z', ['b', 'a']],
      ['a', '2024-12-04T00:00:00Z', ['a']],
      ['c', '2024-12-03T00:00:00Z', ['c', 'x']],
      ['none', '2024-12-02T00:00:00Z'],
    ],
    keep: [
      ['ab', ['has tags [a, b]', 'last snapshot']],
      ['c', ['has tags [c]']],
      ['none', ['has tags []']],
    ],
  },
  {
    name: 'keep-within: strictly after latest − D, D as calendar months (31 Mar − 1m = 3 Mar)',
    policy: { keepWithin: '1m' },
    snapshots: [
      ['latest', '2023-03-31T10:00:00+01:00'],
      ['in', '2023-03-03T10:00:01+01:00'],
      ['edge', '2023-03-03T10:00:00+01:00'],
      ['out', '2023-03-02T23:00:00+01:00'],
    ],
    keep: [
      ['latest', ['within 1m']],
      ['in', ['within 1m']],
    ],
  },
  {
    name: 'keep-within-daily: newest per day inside the window, and the oldest of the group if inside',
    policy: { keepWithinDaily: '4d' },
    snapshots: DAYS,
    keep: [
      ['d5b', ['daily within 4d']],
      ['d3', ['daily within 4d']],
      ['d2b', ['daily within 4d']],
      ['d2a', ['oldest daily within 4d']],
    ],
  },
  {
    name: 'keep-within-daily: the window (after 2 Dec 18:00) ends the rule, the oldest outside it is removed',
    policy: { keepWithinDaily: '3d' },
    snapshots: DAYS,
    keep: [
      ['d5b', ['daily within 3d']],
      ['d3', ['daily within 3d']],
      ['d2b', ['daily within 3d']],
    ],
  },
  {
    name: 'snapshots in the future: latest is the newest before now; the future is inside every window',
    policy: { keepWithin: '1d', keepWithinHourly: '1h' },
    snapshots: [
      ['future', '2025-03-01T00:00:00Z'],
      ['future2', '2025-03-01T00:30:00Z'],
      ['latest', '2025-01-15T11:00:00Z'],
      ['day', '2025-01-14T11:00:01Z'],
      ['old', '2025-01-10T00:00:00Z'],
    ],
    keep: [
      ['future2', ['within 1d', 'hourly within 1h']],
      ['future', ['within 1d']],
      ['latest', ['within 1d', 'hourly within 1h']],
      ['day', ['within 1d']],
    ],
  },
  {
    name: 'all snapshots in the future: latest is Go’s zero time, every window holds everything',
    policy: { keepWithin: '1y' },
    snapshots: [
      ['f1', '2026-01-01T00:00:00Z'],
      ['f2', '2027-01-01T00:00:00Z'],
    ],
    keep: [
      ['f2', ['within 1y']],
      ['f1', ['within 1y']],
    ],
  },
  {
    name: 'ISO weeks: Sunday 29 Dec 2024 and Monday 30 Dec 2024 (2025-W01) are two weeks',
    policy: { keepWeekly: 2 },
    snapshots: [
      ['mon', '2024-12-30T01:00:00+01:00'],
      ['sun', '2024-12-29T23:00:00+01:00'],
      ['sat', '2024-12-28T12:00:00+01:00'],
    ],
    keep: [
      ['mon', ['weekly snapshot']],
      ['sun', ['weekly snapshot']],
    ],
  },
  {
    name: 'the stored offset decides the day: 23:30 in -05:00 is the next day in UTC but not here',
    policy: { keepDaily: 1 },
    snapshots: [
      ['ny', '2024-12-05T23:30:00-05:00'],
      ['ny2', '2024-12-05T08:00:00-05:00'],
    ],
    keep: [['ny', ['daily snapshot']]],
  },
  {
    name: 'DST night: 02:30 CEST and 02:10 CET (later) are the same day and hour on the wall clock',
    policy: { keepHourly: 1, keepDaily: 1 },
    snapshots: [
      ['cet', '2024-10-27T02:10:00+01:00'],
      ['cest', '2024-10-27T02:30:00+02:00'],
    ],
    keep: [['cet', ['hourly snapshot', 'daily snapshot']]],
  },
  {
    name: 'keep-within across DST, fixed offsets: start is 5 Mar 12:00 +02:00 (10:00Z)',
    policy: { keepWithin: '1m' },
    snapshots: [
      ['latest', '2024-04-05T12:00:00+02:00'],
      ['mar', '2024-03-05T11:30:00+01:00'],
    ],
    keep: [
      ['latest', ['within 1m']],
      ['mar', ['within 1m']],
    ],
  },
  {
    name: 'keep-within across DST in the local zone: start is 5 Mar 12:00 +01:00 (11:00Z), as Go’s Local',
    policy: { keepWithin: '1m' },
    zone: berlin2024,
    snapshots: [
      ['latest', '2024-04-05T12:00:00+02:00'],
      ['mar', '2024-03-05T11:30:00+01:00'],
    ],
    keep: [['latest', ['within 1m']]],
  },
  {
    name: 'a latest in another offset than the local zone’s keeps its fixed offset',
    policy: { keepWithin: '1m' },
    zone: berlin2024,
    snapshots: [
      ['latest', '2024-04-05T12:00:00+03:00'], // start 5 Mar 12:00 +03:00 (09:00Z), not 12:00 +01:00
      ['mar', '2024-03-05T11:00:00+01:00'],
    ],
    keep: [
      ['latest', ['within 1m']],
      ['mar', ['within 1m']],
    ],
  },
  {
    name: 'reasons in restic’s order: tags, within, last … yearly, within-buckets',
    policy: { keepTag: ['t'], keepWithin: '1d', keepLast: 1, keepHourly: 1, keepYearly: 1, keepWithinHourly: '1d', keepWithinYearly: '1d' },
    snapshots: [['only', '2024-12-05T00:00:00Z', ['t']]],
    keep: [['only', ['has tags [t]', 'within 1d', 'last snapshot', 'hourly snapshot', 'yearly snapshot', 'hourly within 1d', 'yearly within 1d']]],
  },
];

describe('decideGroup (restic 0.18 ApplyPolicy)', () => {
  it.each(CASES)('$name', (c) => {
    const entries = c.snapshots.map(([label, time, tags]) => entry(label, time, { tags }));
    const d = decideGroup(entries, parsePolicy(c.policy), { now: NOW, zone: c.zone });
    expect(labels(d.keep)).toEqual(c.keep.map(([l]) => l));
    expect(d.reasons.map((r) => [labels([r.entry])[0], r.matches])).toEqual(c.keep);
    const kept = new Set(c.keep.map(([l]) => l));
    expect(labels(d.remove)).toEqual(labels(newestFirst(entries)).filter((l) => !kept.has(l)));
  });

  it('an empty group decides nothing; an empty policy removes everything', () => {
    expect(decideGroup([], parsePolicy({ keepLast: 1 }), { now: NOW })).toEqual({ keep: [], remove: [], reasons: [] });
    const d = decideGroup([entry('x', '2024-01-01T00:00:00Z')], parsePolicy({}), { now: NOW });
    expect(labels(d.remove)).toEqual(['x']);
  });
});

describe('newestFirst and latestTime', () => {
  it('orders newest first, equal times by ID', () => {
    const list = [entry('b', '2024-01-01T00:00:00Z'), entry('c', '2024-01-02T00:00:00Z'), entry('a', '2024-01-01T01:00:00+01:00')];
    expect(labels(newestFirst(list))).toEqual(['c', 'a', 'b']);
    expect(idOf('a') < idOf('b')).toBe(true);
  });

  it('ignores snapshots at or after now', () => {
    const list = [entry('f', '2025-01-15T12:00:00Z'), entry('p', '2025-01-15T11:59:59.999999999Z')];
    expect(latestTime(list, NOW).format()).toBe('2025-01-15T11:59:59.999999999Z');
    expect(latestTime([list[0]!], NOW).isZero()).toBe(true);
  });
});
