// A Go time.Time as restic stores it: an instant with nanosecond precision plus the zone
// offset it was recorded in, written as Go's RFC3339Nano (rfc3339.ts). Integer arithmetic
// only: seconds are safe integers, nanoseconds a separate field.

import {
  civilFromDays,
  daysFromCivil,
  DAYS_IN_MONTH,
  GoTimeError,
  isLeap,
  PARSED,
  parseRfc3339,
  RFC3339_MAX_LENGTH,
  RFC3339_PATTERN,
  writeRfc3339,
} from './rfc3339';

export { GoTimeError };

/**
 * A time zone with rules, like Go's *time.Location: the offset in seconds east of UTC in
 * effect at an instant (unix seconds). A GoTime itself only carries one fixed offset.
 */
export type ZoneRules = (unixSeconds: number) => number;

/** The runtime's local zone (Go's time.Local), from Date: whole minutes, as the runtime knows them. */
export const localZone: ZoneRules = (unixSeconds) => {
  const ms = Math.min(8.64e15, Math.max(-8.64e15, unixSeconds * 1000));
  return -new Date(ms).getTimezoneOffset() * 60 || 0;
};

const NS_PER_SEC_BIG = 1_000_000_000n;
const TEXT_BYTES = new Uint8Array(64);
const SCRATCH = new Uint8Array(RFC3339_MAX_LENGTH);

const YEAR_0 = daysFromCivil(0, 1, 1) * 86400;
const NS_PER_SEC = 1_000_000_000;
const YEAR_10000 = daysFromCivil(10000, 1, 1) * 86400;

/** [floor(a / b), a mod b] for an integer |a| < 2^52, exact despite the floating-point division. */
function floorDiv(a: number, b: number): [number, number] {
  let q = Math.floor(a / b);
  let r = a - q * b;
  if (r < 0) {
    q -= 1;
    r += b;
  } else if (r >= b) {
    q += 1;
    r -= b;
  }
  return [q, r];
}

export class GoTime {
  /**
   * @param sec unix seconds (integer)
   * @param nsec 0 ≤ nsec < 1e9
   * @param offset zone offset in seconds east of UTC
   */
  private constructor(
    readonly sec: number,
    readonly nsec: number,
    readonly offset: number,
  ) {}

  /** Go's zero time.Time, 0001-01-01T00:00:00Z (what a missing timestamp decodes to). */
  static readonly zero = new GoTime(-62135596800, 0, 0);

  /** time.Unix(sec, nsec) seen in a zone `offsetSeconds` east of UTC; nsec may be any integer. */
  static fromUnix(sec: number | bigint, nsec: number | bigint = 0, offsetSeconds = 0): GoTime {
    if (typeof sec === 'number' && typeof nsec === 'number' && Number.isSafeInteger(sec) && Number.isInteger(nsec) && Math.abs(nsec) < 2 ** 52) {
      const [carry, rest] = floorDiv(nsec, 1e9);
      if (Number.isSafeInteger(sec + carry)) return GoTime.checked(sec + carry, rest, offsetSeconds);
    }
    return GoTime.fromUnixNanos(BigInt(sec) * NS_PER_SEC_BIG + BigInt(nsec), offsetSeconds);
  }

  /** From nanoseconds since the epoch, e.g. Node's `stat(p, {bigint: true}).mtimeNs`. */
  static fromUnixNanos(ns: bigint, offsetSeconds = 0): GoTime {
    let sec = Number(ns / NS_PER_SEC_BIG);
    let nsec = Number(ns % NS_PER_SEC_BIG);
    if (nsec < 0) {
      nsec += 1e9;
      sec -= 1;
    }
    return GoTime.checked(sec, nsec, offsetSeconds);
  }

  private static checked(sec: number, nsec: number, offsetSeconds: number): GoTime {
    if (!Number.isInteger(offsetSeconds)) throw new GoTimeError(`offset must be whole seconds: ${offsetSeconds}`);
    return new GoTime(sec, nsec, offsetSeconds);
  }

  /**
   * From a JS millisecond timestamp (File.lastModified) and the zone offset at that instant
   * in minutes east of UTC, i.e. `-new Date(ms).getTimezoneOffset()` (may be fractional
   * for historical local mean times; it is rounded to whole seconds).
   */
  static fromMillis(ms: number, offsetMinutes = 0): GoTime {
    if (!Number.isFinite(ms)) throw new GoTimeError(`invalid timestamp: ${ms}`);
    const whole = Math.floor(ms);
    const subMs = Math.round((ms - whole) * 1e6); // sub-millisecond part, in ns
    if (Math.abs(whole) < 2 ** 52) {
      const [sec, msRest] = floorDiv(whole, 1000);
      const [carry, nsec] = floorDiv(msRest * 1_000_000 + subMs, 1e9);
      return GoTime.checked(sec + carry, nsec, Math.round(offsetMinutes * 60));
    }
    return GoTime.fromUnixNanos(BigInt(whole) * 1_000_000n + BigInt(subMs), Math.round(offsetMinutes * 60));
  }

  /** A Date in the runtime's local zone, like Go's time.Now() in Local. */
  static fromDate(d: Date): GoTime {
    return GoTime.fromMillis(d.getTime(), -d.getTimezoneOffset());
  }

  /** Parses RFC3339 / RFC3339Nano as Go's time.Parse does (extra fraction digits are truncated). */
  static parse(s: string): GoTime {
    return GoTime.tryParse(s) ?? GoTime.parseWithRegExp(s);
  }

  /** The reference reader (and its error messages) behind the hand-written parseRfc3339. */
  private static parseWithRegExp(s: string): GoTime {
    const m = RFC3339_PATTERN.exec(s);
    if (!m) throw new GoTimeError(`not an RFC3339 time: ${JSON.stringify(s)}`);
    const [year, month, day, hour, min, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const dim = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
    if (dim === undefined || day < 1 || day > dim || hour > 23 || min > 59 || sec > 59) {
      throw new GoTimeError(`time out of range: ${JSON.stringify(s)}`);
    }
    const nsec = m[7] ? Number(m[7].slice(0, 9).padEnd(9, '0')) : 0;
    let offset = 0;
    if (m[8]) {
      const oh = Number(m[9]);
      const om = Number(m[10]);
      if (oh > 23 || om > 59) throw new GoTimeError(`zone offset out of range: ${JSON.stringify(s)}`);
      offset = (m[8] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
    }
    const local = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec;
    return new GoTime(local - offset, nsec, offset);
  }

  /**
   * RFC3339 text (or its ASCII bytes) s[from..to) read like parse(), or undefined when it is
   * not a valid time: no exception, and the tree reader parses in place.
   */
  static tryParse(s: string | Uint8Array, from = 0, to = s.length): GoTime | undefined {
    if (typeof s !== 'string') return parseRfc3339(s, from, to) ? GoTime.fromParsed() : undefined;
    let b = TEXT_BYTES;
    if (to - from > b.length) b = new Uint8Array(to - from);
    for (let k = from; k < to; k++) {
      const c = s.charCodeAt(k);
      b[k - from] = c < 0x80 ? c : 0; // only ASCII can be valid
    }
    return parseRfc3339(b, 0, to - from) ? GoTime.fromParsed() : undefined;
  }

  private static fromParsed(): GoTime {
    return new GoTime(PARSED.local - PARSED.offset, PARSED.nsec, PARSED.offset);
  }

  /** Calendar fields in the time's own zone. */
  civil(): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
    const local = this.sec + this.offset;
    const days = Math.floor(local / 86400);
    const rem = local - days * 86400;
    const [year, month, day] = civilFromDays(days);
    return { year, month, day, hour: Math.floor(rem / 3600), minute: Math.floor((rem % 3600) / 60), second: rem % 60 };
  }

  /** Day of the week in the time's own zone, as Go's Weekday: 0 = Sunday … 6 = Saturday. */
  weekday(): number {
    const days = Math.floor((this.sec + this.offset) / 86400);
    return (((days + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  }

  /**
   * Go's ISOWeek in the time's own zone: weeks start on Monday, week 1 holds the year's first
   * Thursday, so 2024-12-30 is week 1 of 2025 and 2021-01-03 week 53 of 2020.
   */
  isoWeek(): { year: number; week: number } {
    const days = Math.floor((this.sec + this.offset) / 86400);
    const isoDay = ((this.weekday() + 6) % 7) + 1; // Monday 1 … Sunday 7
    const thursday = days + 4 - isoDay;
    const [year] = civilFromDays(thursday);
    return { year, week: Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1 };
  }

  /**
   * Go's AddDate: the calendar date moved by whole years, months and days, the clock kept,
   * then normalised as time.Date does (31 Mar − 1 month = "31 Feb" = 3 Mar, or 2 Mar in a leap
   * year). Without `zone` the result keeps this time's fixed offset; with it the wall clock
   * is placed in that zone as time.Date places it (a clock time skipped or repeated by a DST
   * change resolves as Go resolves it) and the result carries the zone's offset there.
   */
  addDate(years: number, months: number, days: number, zone?: ZoneRules): GoTime {
    const c = this.civil();
    const [carry, month0] = floorDiv(c.month - 1 + months, 12);
    const wall = daysFromCivil(c.year + years + carry, month0 + 1, c.day + days) * 86400 + c.hour * 3600 + c.minute * 60 + c.second;
    if (!zone) return new GoTime(wall - this.offset, this.nsec, this.offset);
    // time.Date: look the offset up at the wall clock read as UTC, then once more at the
    // instant that gives, unless the first lookup said UTC.
    const first = zone(wall);
    const offset = first === 0 ? 0 : zone(wall - first);
    const sec = wall - offset;
    return new GoTime(sec, this.nsec, zone(sec));
  }

  /** Go's Add: the same zone offset, the instant moved by `ns` nanoseconds. */
  addNanos(ns: bigint): GoTime {
    const [carry, nsec] = floorDiv(this.nsec + Number(ns % 1_000_000_000n), NS_PER_SEC);
    return new GoTime(this.sec + Number(ns / 1_000_000_000n) + carry, nsec, this.offset);
  }

  /** Go's RFC3339Nano text. Throws for years outside 0..9999, like time.MarshalJSON. */
  format(): string {
    const n = writeRfc3339(this, SCRATCH, 0);
    return String.fromCharCode.apply(null, SCRATCH.subarray(0, n) as unknown as number[]);
  }

  toString(): string {
    return this.format();
  }

  /**
   * restic's FixTime: a year below 0 becomes 0, above 9999 becomes 9999, everything else
   * (month, day, clock, zone) kept; Feb 29 moved to a common year rolls over to Mar 1.
   */
  fixYear(): GoTime {
    const wall = this.sec + this.offset;
    if (wall >= YEAR_0 && wall < YEAR_10000) return this;
    const c = this.civil();
    const year = c.year < 0 ? 0 : 9999;
    const local = daysFromCivil(year, c.month, c.day) * 86400 + c.hour * 3600 + c.minute * 60 + c.second;
    return new GoTime(local - this.offset, this.nsec, this.offset);
  }

  /** Same instant (Go's Time.Equal: the zone does not matter). */
  equal(o: GoTime): boolean {
    return this.sec === o.sec && this.nsec === o.nsec;
  }

  compare(o: GoTime): number {
    return this.sec !== o.sec ? Math.sign(this.sec - o.sec) : Math.sign(this.nsec - o.nsec);
  }

  isZero(): boolean {
    return this.equal(GoTime.zero);
  }

  withOffset(offsetSeconds: number): GoTime {
    return new GoTime(this.sec, this.nsec, offsetSeconds);
  }

  unixNanos(): bigint {
    return BigInt(this.sec) * NS_PER_SEC_BIG + BigInt(this.nsec);
  }

  /** Milliseconds since the epoch (sub-millisecond part dropped, rounding toward -∞). */
  unixMillis(): number {
    return this.sec * 1000 + Math.floor(this.nsec / 1_000_000);
  }
}
