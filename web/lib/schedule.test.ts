import { describe, expect, test } from 'vitest';
import { describeSchedule, nextRun, parseTimeOfDay, scheduleProblem, wallTimeToInstant, weekday, zoneOffset, type Schedule } from './schedule';

const Z = (iso: string) => Date.parse(iso);
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString().replace('.000Z', 'Z'));

describe('zone arithmetic', () => {
  test.each([
    ['UTC', '2025-01-15T12:00:00Z', 0],
    ['Europe/Berlin', '2025-01-15T12:00:00Z', 60],
    ['Europe/Berlin', '2025-07-15T12:00:00Z', 120],
    ['America/St_Johns', '2025-01-15T12:00:00Z', -210],
    ['Asia/Kolkata', '2025-01-15T12:00:00Z', 330],
    ['Pacific/Chatham', '2025-01-15T12:00:00Z', 825],
    ['Australia/Lord_Howe', '2025-01-15T12:00:00Z', 660],
    ['Australia/Lord_Howe', '2025-07-15T12:00:00Z', 630],
  ])('%s at %s is UTC%+d min', (tz, at, minutes) => {
    expect(zoneOffset(tz, Z(at))).toBe(minutes * 60_000);
  });

  test('weekdays count from Thursday 1970-01-01', () => {
    expect(weekday(0)).toBe(4);
    expect(weekday(Math.floor(Z('2025-03-09T12:00:00Z') / 86_400_000))).toBe(0); // a Sunday
    expect(weekday(-1)).toBe(3);
  });

  test('a skipped wall time maps to the moment the clocks jump; a doubled one to its first occurrence', () => {
    const day = (d: string) => Math.floor(Z(d + 'T00:00:00Z') / 86_400_000);
    // New York springs forward at 02:00 EST (07:00Z) to 03:00 EDT.
    expect(iso(wallTimeToInstant('America/New_York', day('2025-03-09'), 150))).toBe('2025-03-09T07:00:00Z');
    // …and falls back at 02:00 EDT to 01:00 EST: 01:30 happens at 05:30Z and 06:30Z.
    expect(iso(wallTimeToInstant('America/New_York', day('2025-11-02'), 90))).toBe('2025-11-02T05:30:00Z');
    // Lord Howe moves by half an hour: 02:00 → 02:30 on 2025-10-05.
    expect(iso(wallTimeToInstant('Australia/Lord_Howe', day('2025-10-05'), 135))).toBe('2025-10-04T15:30:00Z');
  });
});

interface Case {
  name: string;
  s: Schedule;
  tz: string;
  after: string;
  want: string | undefined;
}

const cases: Case[] = [
  // every N hours: real hours, whatever the wall clock does
  { name: 'every 6 hours', s: { kind: 'hours', every: 6 }, tz: 'Europe/Berlin', after: '2025-05-01T10:07:00Z', want: '2025-05-01T16:07:00Z' },
  {
    name: 'every 3 hours over the spring-forward night',
    s: { kind: 'hours', every: 3 },
    tz: 'America/New_York',
    after: '2025-03-09T05:00:00Z',
    want: '2025-03-09T08:00:00Z',
  },
  {
    name: 'every 24 hours over the fall-back night is 24 real hours',
    s: { kind: 'hours', every: 24 },
    tz: 'Europe/Berlin',
    after: '2025-10-25T20:00:00Z',
    want: '2025-10-26T20:00:00Z',
  },
  { name: 'every hour over a month end', s: { kind: 'hours', every: 1 }, tz: 'UTC', after: '2025-01-31T23:30:00Z', want: '2025-02-01T00:30:00Z' },

  // daily at a wall time
  { name: 'daily, later today', s: { kind: 'daily', at: '21:30' }, tz: 'Europe/Berlin', after: '2025-05-01T10:00:00Z', want: '2025-05-01T19:30:00Z' },
  { name: 'daily, already past today', s: { kind: 'daily', at: '09:00' }, tz: 'Europe/Berlin', after: '2025-05-01T10:00:00Z', want: '2025-05-02T07:00:00Z' },
  {
    name: 'daily, exactly at the time is the next day',
    s: { kind: 'daily', at: '09:00' },
    tz: 'Europe/Berlin',
    after: '2025-05-01T07:00:00Z',
    want: '2025-05-02T07:00:00Z',
  },
  {
    name: 'daily at a skipped time runs when the clocks jump',
    s: { kind: 'daily', at: '02:30' },
    tz: 'America/New_York',
    after: '2025-03-08T12:00:00Z',
    want: '2025-03-09T07:00:00Z',
  },
  {
    name: 'daily at a doubled time runs once, at the first',
    s: { kind: 'daily', at: '01:30' },
    tz: 'America/New_York',
    after: '2025-11-01T12:00:00Z',
    want: '2025-11-02T05:30:00Z',
  },
  {
    name: 'daily after the first of a doubled time skips the second',
    s: { kind: 'daily', at: '01:30' },
    tz: 'America/New_York',
    after: '2025-11-02T05:30:00Z',
    want: '2025-11-03T06:30:00Z',
  },
  {
    name: 'daily in Berlin on the fall-back night',
    s: { kind: 'daily', at: '02:30' },
    tz: 'Europe/Berlin',
    after: '2025-10-25T12:00:00Z',
    want: '2025-10-26T00:30:00Z',
  },
  {
    name: 'daily the day after spring-forward keeps the wall time',
    s: { kind: 'daily', at: '08:00' },
    tz: 'Europe/Berlin',
    after: '2025-03-29T12:00:00Z',
    want: '2025-03-30T06:00:00Z',
  },
  { name: 'daily over a month end', s: { kind: 'daily', at: '00:15' }, tz: 'Asia/Kolkata', after: '2025-04-30T18:00:00Z', want: '2025-04-30T18:45:00Z' },
  {
    name: 'daily over a month end (next day)',
    s: { kind: 'daily', at: '00:15' },
    tz: 'Asia/Kolkata',
    after: '2025-04-30T18:45:00Z',
    want: '2025-05-01T18:45:00Z',
  },
  { name: 'daily over a leap day', s: { kind: 'daily', at: '23:00' }, tz: 'UTC', after: '2028-02-28T23:00:00Z', want: '2028-02-29T23:00:00Z' },
  { name: 'daily over a year end', s: { kind: 'daily', at: '06:00' }, tz: 'Pacific/Chatham', after: '2025-12-31T12:00:00Z', want: '2025-12-31T16:15:00Z' },
  {
    name: 'daily in a half-hour zone',
    s: { kind: 'daily', at: '12:00' },
    tz: 'America/St_Johns',
    after: '2025-01-15T00:00:00Z',
    want: '2025-01-15T15:30:00Z',
  },
  {
    name: 'daily when the time lands in a half-hour DST gap',
    s: { kind: 'daily', at: '02:15' },
    tz: 'Australia/Lord_Howe',
    after: '2025-10-04T00:00:00Z',
    want: '2025-10-04T15:30:00Z',
  },

  // weekly on days
  {
    name: 'weekly, later this week',
    s: { kind: 'weekly', days: [1, 4], at: '08:00' },
    tz: 'UTC',
    after: '2025-05-06T12:00:00Z',
    want: '2025-05-08T08:00:00Z',
  },
  {
    name: 'weekly, next week',
    s: { kind: 'weekly', days: [1], at: '08:00' },
    tz: 'UTC',
    after: '2025-05-05T08:00:00Z',
    want: '2025-05-12T08:00:00Z',
  },
  {
    name: 'weekly on Sunday, the weekday taken in the zone (already Sunday there)',
    s: { kind: 'weekly', days: [0], at: '09:00' },
    tz: 'Pacific/Auckland',
    after: '2025-05-03T20:00:00Z',
    want: '2025-05-03T21:00:00Z',
  },
  {
    name: 'weekly on Saturday, west of UTC where it is still Saturday',
    s: { kind: 'weekly', days: [6], at: '22:00' },
    tz: 'America/Los_Angeles',
    after: '2025-05-04T01:00:00Z',
    want: '2025-05-04T05:00:00Z',
  },
  {
    name: 'weekly over a month and year end',
    s: { kind: 'weekly', days: [4], at: '10:00' },
    tz: 'Europe/Berlin',
    after: '2025-12-26T00:00:00Z',
    want: '2026-01-01T09:00:00Z',
  },
  {
    name: 'weekly on the spring-forward Sunday at a skipped time',
    s: { kind: 'weekly', days: [0], at: '02:30' },
    tz: 'Europe/Berlin',
    after: '2025-03-28T00:00:00Z',
    want: '2025-03-30T01:00:00Z',
  },

  { name: 'manual never runs by itself', s: { kind: 'manual' }, tz: 'UTC', after: '2025-01-01T00:00:00Z', want: undefined },
  { name: 'an invalid time never runs', s: { kind: 'daily', at: '25:00' }, tz: 'UTC', after: '2025-01-01T00:00:00Z', want: undefined },
  { name: 'no weekday never runs', s: { kind: 'weekly', days: [], at: '10:00' }, tz: 'UTC', after: '2025-01-01T00:00:00Z', want: undefined },
];

describe('nextRun', () => {
  test.each(cases)('$name', ({ s, tz, after, want }) => {
    expect(iso(nextRun(s, Z(after), tz))).toBe(want);
  });

  test('a daily plan runs once per calendar day for a year in every test zone', () => {
    for (const tz of ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/St_Johns', 'Pacific/Chatham']) {
      let t = Z('2025-01-01T00:00:00Z');
      const days = new Set<string>();
      for (let i = 0; i < 365; i++) {
        const next = nextRun({ kind: 'daily', at: '02:30' }, t, tz)!;
        expect(next).toBeGreaterThan(t);
        expect(next - t).toBeLessThanOrEqual(25 * 3_600_000);
        const local = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(next);
        expect(days.has(local), `${tz} ${local} twice`).toBe(false);
        days.add(local);
        t = next;
      }
    }
  });
});

test('times of day and schedule problems', () => {
  expect(parseTimeOfDay('7:05')).toBe(425);
  expect(parseTimeOfDay('23:59')).toBe(1439);
  expect(parseTimeOfDay('24:00')).toBeUndefined();
  expect(parseTimeOfDay('12')).toBeUndefined();
  expect(scheduleProblem({ kind: 'hours', every: 0 })).toMatch(/1 to 168/);
  expect(scheduleProblem({ kind: 'hours', every: 2.5 })).toMatch(/whole number/);
  expect(scheduleProblem({ kind: 'weekly', days: [7], at: '10:00' })).toMatch(/day/);
  expect(scheduleProblem({ kind: 'daily', at: '10:00' })).toBeUndefined();
  expect(describeSchedule({ kind: 'weekly', days: [0, 4, 1], at: '08:00' })).toBe('Mon, Thu, Sun at 08:00');
  expect(describeSchedule({ kind: 'hours', every: 1 })).toBe('every hour');
});
