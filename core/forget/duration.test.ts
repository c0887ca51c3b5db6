import { describe, expect, it } from 'vitest';
import { GoTime } from '../data/go-time';
import { formatDuration, isZeroDuration, parseDuration, windowStart, type Duration } from './duration';

const d = (years: number, months: number, days: number, hours: number): Duration => ({ years, months, days, hours });

describe('parseDuration (restic ParseDuration)', () => {
  it.each([
    ['1y2m3d4h', d(1, 2, 3, 4)],
    ['4h3d2m1y', d(1, 2, 3, 4)],
    ['  7d\n', d(0, 0, 7, 0)],
    ['', d(0, 0, 0, 0)],
    ['0d', d(0, 0, 0, 0)],
    ['1d2d', d(0, 0, 2, 0)], // a repeated unit overwrites
    ['-3h', d(0, 0, 0, -3)], // parsed; the policy refuses it
    ['007m', d(0, 7, 0, 0)],
  ])('%j → %j', (text, want) => {
    expect(parseDuration(text)).toEqual(want);
  });

  it.each([
    ['d', 'no number found'],
    ['+1d', 'no number found'],
    ['1d-', 'no number found'],
    ['12', 'no unit found after number 12'],
    ['1w', "invalid unit 'w' found after number 1"],
    ['1 d', "invalid unit ' ' found after number 1"],
    ['5D', "invalid unit 'D' found after number 5"],
  ])('refuses %j: %s', (text, message) => {
    expect(() => parseDuration(text)).toThrow(message);
  });

  it.each([
    [d(1, 2, 3, 4), '1y2m3d4h'],
    [d(0, 0, 7, 0), '7d'],
    [d(2, 0, 0, 12), '2y12h'],
    [d(0, 0, 0, 0), ''],
  ])('formats %j as %j', (dur, text) => {
    expect(formatDuration(dur)).toBe(text);
    expect(isZeroDuration(dur)).toBe(text === '');
  });
});

describe('windowStart (latest.AddDate(-y, -m, -d).Add(-h))', () => {
  it.each([
    ['2023-03-31T10:00:00+01:00', d(0, 1, 0, 0), '2023-03-03T10:00:00+01:00'],
    ['2024-03-31T10:00:00+01:00', d(0, 1, 0, 0), '2024-03-02T10:00:00+01:00'],
    ['2024-03-01T00:30:00Z', d(0, 0, 0, 1), '2024-02-29T23:30:00Z'],
    ['2024-02-29T12:00:00-07:00', d(1, 0, 1, 0), '2023-02-28T12:00:00-07:00'], // Go moves year and day together: "2023-02-28"
    ['2025-01-01T05:00:00.5+09:00', d(0, 0, 1, 30), '2024-12-29T23:00:00.5+09:00'],
  ])('%s − %j = %s', (latest, dur, want) => {
    expect(windowStart(GoTime.parse(latest), dur).format()).toBe(want);
  });
});
