import { describe, expect, it } from 'vitest';
import { GoTime, GoTimeError, localZone } from './go-time';

describe('GoTime.parse / format (RFC3339Nano)', () => {
  // [input, Go's RFC3339Nano output for the parsed time]
  it.each([
    ['2020-09-13T12:26:40Z', '2020-09-13T12:26:40Z'],
    ['2020-09-13T12:26:40.000000000Z', '2020-09-13T12:26:40Z'],
    ['2020-09-13T12:26:40.5Z', '2020-09-13T12:26:40.5Z'],
    ['2020-09-13T12:26:40.123456789+02:00', '2020-09-13T12:26:40.123456789+02:00'],
    ['2020-09-13T12:26:40.120+00:00', '2020-09-13T12:26:40.12Z'], // +00:00 is written as Z
    ['2020-09-13T09:56:40-02:30', '2020-09-13T09:56:40-02:30'],
    ['2020-09-13T12:26:40.1234567891234Z', '2020-09-13T12:26:40.123456789Z'], // extra digits truncated
    ['2020-09-13T12:26:40,25Z', '2020-09-13T12:26:40.25Z'], // Go also takes a comma
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['0000-02-29T23:59:59.999999999-14:00', '0000-02-29T23:59:59.999999999-14:00'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00Z'],
  ])('%s → %s', (input, output) => {
    expect(GoTime.parse(input).format()).toBe(output);
  });

  it.each([
    '2020-09-13 12:26:40Z',
    '2020-09-13T12:26:40',
    '2020-09-13T12:26:40z',
    '2020-09-13T12:26:40+0200',
    '2020-09-13T12:26:40.Z',
    '2020-13-01T00:00:00Z',
    '2021-02-29T00:00:00Z',
    '2020-09-13T24:00:00Z',
    '2020-09-13T12:60:00Z',
    '2020-09-13T12:00:60Z',
    '2020-09-13T12:00:00+24:00',
    '20200-09-13T12:00:00Z',
  ])('rejects %s', (s) => {
    expect(() => GoTime.parse(s)).toThrow(GoTimeError);
  });

  it('compares instants, not zones', () => {
    const a = GoTime.parse('2020-09-13T12:26:40.5Z');
    const b = GoTime.parse('2020-09-13T09:56:40.5-02:30');
    expect(a.equal(b)).toBe(true);
    expect(a.compare(b)).toBe(0);
    expect(a.format()).not.toBe(b.format());
    expect(GoTime.parse('2020-09-13T12:26:40.500000001Z').compare(a)).toBe(1);
    expect(GoTime.parse('2020-09-13T12:26:39.9Z').compare(a)).toBe(-1);
  });
});

describe('GoTime constructors', () => {
  it('takes bigint nanoseconds from stat, also before 1970', () => {
    expect(GoTime.fromUnixNanos(1_600_000_000_123_456_789n).format()).toBe('2020-09-13T12:26:40.123456789Z');
    expect(GoTime.fromUnixNanos(-1n).format()).toBe('1969-12-31T23:59:59.999999999Z');
    expect(GoTime.fromUnixNanos(1_600_000_000_000_000_000n, -9000).format()).toBe('2020-09-13T09:56:40-02:30');
  });

  it('takes unix seconds and nanoseconds (normalised like time.Unix)', () => {
    expect(GoTime.fromUnix(1_600_000_000, 1_500_000_000).format()).toBe('2020-09-13T12:26:41.5Z');
    expect(GoTime.fromUnix(0n, -1).format()).toBe('1969-12-31T23:59:59.999999999Z');
  });

  it('takes a JS millisecond timestamp and a local offset in minutes', () => {
    expect(GoTime.fromMillis(1_600_000_000_123, 330).format()).toBe('2020-09-13T17:56:40.123+05:30');
    expect(GoTime.fromMillis(1_600_000_000_000, 0).format()).toBe('2020-09-13T12:26:40Z');
    expect(GoTime.fromMillis(-1, 0).format()).toBe('1969-12-31T23:59:59.999Z');
    expect(GoTime.fromMillis(1_600_000_000_000, -600).unixMillis()).toBe(1_600_000_000_000);
  });

  it('writes offsets with seconds as Go does: whole minutes, truncated', () => {
    // Europe/Amsterdam's 1937 LMT-based offset was +00:19:32.
    expect(GoTime.fromUnix(0, 0, 19 * 60 + 32).format()).toBe('1970-01-01T00:19:32+00:19');
    expect(GoTime.fromUnix(0, 0, -30).format()).toBe('1969-12-31T23:59:30+00:00');
  });

  it('round-trips nanoseconds exactly', () => {
    const ns = 1_732_000_000_987_654_321n;
    expect(GoTime.fromUnixNanos(ns, 3600).unixNanos()).toBe(ns);
    expect(GoTime.zero.isZero()).toBe(true);
    expect(GoTime.zero.format()).toBe('0001-01-01T00:00:00Z');
  });
});

describe('fixYear (restic FixTime)', () => {
  const utcSeconds = (y: number, m: number, d: number, h = 0) => {
    const date = new Date(Date.UTC(2000, m - 1, d, h));
    date.setUTCFullYear(y); // Date.UTC maps years 0..99 to 19xx
    return date.getTime() / 1000;
  };

  it.each([
    [utcSeconds(10000, 1, 1), 0, '9999-01-01T00:00:00Z'],
    [utcSeconds(12345, 6, 7, 8), 3600, '9999-06-07T09:00:00+01:00'],
    [utcSeconds(10000, 2, 29), 0, '9999-03-01T00:00:00Z'], // Feb 29 rolls over like AddDate
    [utcSeconds(-1, 3, 1), 0, '0000-03-01T00:00:00Z'],
    [utcSeconds(-5000, 12, 31, 23), 0, '0000-12-31T23:00:00Z'],
    [utcSeconds(2020, 1, 1), 0, '2020-01-01T00:00:00Z'],
  ])('clamps %s (offset %s) to %s', (sec, offset, text) => {
    expect(GoTime.fromUnix(sec, 0, offset).fixYear().format()).toBe(text);
  });

  it('refuses to format years outside 0..9999 unclamped, like time.MarshalJSON', () => {
    expect(() => GoTime.fromUnix(utcSeconds(10000, 1, 1)).format()).toThrow(GoTimeError);
    expect(() => GoTime.fromUnix(utcSeconds(-1, 1, 1)).format()).toThrow(GoTimeError);
  });
});

// Europe/Berlin around 2024 (CET +01:00, CEST +02:00 from 31 Mar 01:00Z to 27 Oct 01:00Z),
// written out so the tests do not depend on the machine's zone.
const berlin2024 = (sec: number) => (sec >= Date.UTC(2024, 2, 31, 1) / 1000 && sec < Date.UTC(2024, 9, 27, 1) / 1000 ? 7200 : 3600);

describe('calendar fields for forget buckets', () => {
  // [time, Go's Weekday(), ISOWeek() year and week] — the dates checked with Python's date.isocalendar()
  it.each([
    ['2024-12-29T23:59:59+01:00', 0, 2024, 52],
    ['2024-12-30T00:00:00+01:00', 1, 2025, 1], // Monday of 2025-W01
    ['2024-12-29T23:30:00Z', 0, 2024, 52], // the same instant in +01:00 is already 30 Dec
    ['2025-01-01T00:00:00Z', 3, 2025, 1],
    ['2021-01-03T12:00:00-05:00', 0, 2020, 53], // 2020 had 53 weeks
    ['2021-01-04T00:00:00+14:00', 1, 2021, 1],
    ['2016-01-03T00:00:00Z', 0, 2015, 53],
    ['2026-12-31T23:59:59Z', 4, 2026, 53],
    ['2027-01-01T00:00:00Z', 5, 2026, 53],
    ['2027-01-04T00:00:00Z', 1, 2027, 1],
    ['2024-02-29T12:00:00Z', 4, 2024, 9],
    ['1969-12-31T23:59:59Z', 3, 1970, 1],
    ['0001-01-01T00:00:00Z', 1, 1, 1],
  ])('%s: weekday %i, ISO week %i-W%i', (text, weekday, year, week) => {
    const t = GoTime.parse(text);
    expect(t.weekday()).toBe(weekday);
    expect(t.isoWeek()).toEqual({ year, week });
  });
});

describe('addDate (Go AddDate) and addNanos (Go Add)', () => {
  // [time, years, months, days, Go's result in the same fixed offset]
  it.each([
    ['2023-03-31T10:00:00+01:00', 0, -1, 0, '2023-03-03T10:00:00+01:00'], // "31 Feb" normalises forward
    ['2024-03-31T10:00:00+01:00', 0, -1, 0, '2024-03-02T10:00:00+01:00'], // leap year
    ['2024-02-29T00:00:00Z', 1, 0, 0, '2025-03-01T00:00:00Z'],
    ['2024-02-29T00:00:00Z', -1, 0, 0, '2023-03-01T00:00:00Z'],
    ['2011-01-01T00:00:00Z', -1, 2, 3, '2010-03-04T00:00:00Z'], // Go's documented example
    ['2023-10-31T00:00:00Z', 0, 1, 0, '2023-12-01T00:00:00Z'],
    ['2023-01-31T23:00:00-03:00', 0, 1, 0, '2023-03-03T23:00:00-03:00'],
    ['2024-01-01T00:30:00Z', 0, 0, -1, '2023-12-31T00:30:00Z'],
    ['2024-01-15T00:00:00Z', 0, -13, 0, '2022-12-15T00:00:00Z'],
    ['2024-01-15T00:00:00Z', 0, -24, -400, '2020-12-11T00:00:00Z'],
    ['2024-05-31T08:00:00.5+05:30', 0, -3, -31, '2024-01-31T08:00:00.5+05:30'],
  ])('%s + (%iy %im %id) = %s', (text, y, m, d, want) => {
    expect(GoTime.parse(text).addDate(y, m, d).format()).toBe(want);
  });

  // In a zone with rules the wall clock is kept and the offset follows the zone, as time.Date
  // resolves it (test/interop/forget.test.ts holds restic to the same in TZ=Europe/Berlin).
  it.each([
    ['2024-04-05T12:00:00+02:00', 0, -1, 0, '2024-03-05T12:00:00+01:00'],
    ['2024-11-05T12:00:00+01:00', 0, -1, 0, '2024-10-05T12:00:00+02:00'],
    // 31 Mar 02:30 does not exist in Berlin: Go lands at 03:30 CEST
    ['2024-04-30T02:30:00+02:00', 0, -1, 1, '2024-03-31T03:30:00+02:00'],
    // 27 Oct 02:30 happens twice: Go takes the second one (+01:00)
    ['2024-11-27T02:30:00+01:00', 0, -1, 0, '2024-10-27T02:30:00+01:00'],
    ['2024-10-28T02:30:00+01:00', 0, 0, -1, '2024-10-27T02:30:00+01:00'],
  ])('%s + (%iy %im %id) in Europe/Berlin = %s', (text, y, m, d, want) => {
    expect(GoTime.parse(text).addDate(y, m, d, berlin2024).format()).toBe(want);
  });

  it('adds nanoseconds, carrying in both directions and keeping the offset', () => {
    const t = GoTime.parse('2024-01-01T00:00:00.25+01:00');
    expect(t.addNanos(-3_600_000_000_000n).format()).toBe('2023-12-31T23:00:00.25+01:00');
    expect(t.addNanos(-500_000_000n).format()).toBe('2023-12-31T23:59:59.75+01:00');
    expect(t.addNanos(1_750_000_000n).format()).toBe('2024-01-01T00:00:02+01:00');
  });

  it('reads the local zone from the runtime', () => {
    const sec = 1_700_000_000;
    expect(localZone(sec)).toBe(-new Date(sec * 1000).getTimezoneOffset() * 60 || 0);
  });
});
