import { describe, expect, it } from 'vitest';
import { GoTime, GoTimeError } from './go-time';

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
