// A Go time.Time as restic stores it: an instant with nanosecond precision plus the zone
// offset it was recorded in. Written as Go's RFC3339Nano ("2006-01-02T15:04:05.999999999Z07:00":
// fraction trimmed of trailing zeros and dropped when zero, `Z` for offset 0, else ±hh:mm).
// Integer arithmetic only: seconds are safe integers, nanoseconds a separate field.

const NS_PER_SEC_BIG = 1_000_000_000n;

export class GoTimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoTimeError';
  }
}

// Days since 1970-01-01 for a proleptic Gregorian date (month may overflow into the next
// year's March: Feb 29 of a common year becomes Mar 1, as Go's time.Date normalises).
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const YEAR_0 = daysFromCivil(0, 1, 1) * 86400;
const YEAR_10000 = daysFromCivil(10000, 1, 1) * 86400;
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const pad = (n: number, w: number) => String(n).padStart(w, '0');

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
    return GoTime.fromUnixNanos(BigInt(sec) * NS_PER_SEC_BIG + BigInt(nsec), offsetSeconds);
  }

  /** From nanoseconds since the epoch, e.g. Node's `stat(p, {bigint: true}).mtimeNs`. */
  static fromUnixNanos(ns: bigint, offsetSeconds = 0): GoTime {
    let sec = ns / NS_PER_SEC_BIG;
    let nsec = ns - sec * NS_PER_SEC_BIG;
    if (nsec < 0n) {
      nsec += NS_PER_SEC_BIG;
      sec -= 1n;
    }
    if (!Number.isInteger(offsetSeconds)) throw new GoTimeError(`offset must be whole seconds: ${offsetSeconds}`);
    return new GoTime(Number(sec), Number(nsec), offsetSeconds);
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
    return GoTime.fromUnixNanos(BigInt(whole) * 1_000_000n + BigInt(subMs), Math.round(offsetMinutes * 60));
  }

  /** A Date in the runtime's local zone, like Go's time.Now() in Local. */
  static fromDate(d: Date): GoTime {
    return GoTime.fromMillis(d.getTime(), -d.getTimezoneOffset());
  }

  /** Parses RFC3339 / RFC3339Nano as Go's time.Parse does (extra fraction digits are truncated). */
  static parse(s: string): GoTime {
    const m = RFC3339.exec(s);
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

  /** Calendar fields in the time's own zone. */
  civil(): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
    const local = this.sec + this.offset;
    const days = Math.floor(local / 86400);
    const rem = local - days * 86400;
    const [year, month, day] = civilFromDays(days);
    return { year, month, day, hour: Math.floor(rem / 3600), minute: Math.floor((rem % 3600) / 60), second: rem % 60 };
  }

  private text: string | undefined; // format() memo: instances are immutable

  /** Go's RFC3339Nano text. Throws for years outside 0..9999, like time.MarshalJSON. */
  format(): string {
    return (this.text ??= this.formatUncached());
  }

  private formatUncached(): string {
    const c = this.civil();
    if (c.year < 0 || c.year > 9999) throw new GoTimeError(`year outside of range [0,9999]: ${c.year}`);
    let out = `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
    if (this.nsec !== 0) out += '.' + pad(this.nsec, 9).replace(/0+$/, '');
    if (this.offset === 0) return out + 'Z';
    // Go prints whole minutes, truncating toward zero, with the sign of that minute count.
    const zone = Math.trunc(this.offset / 60);
    const abs = Math.abs(zone);
    return out + (zone < 0 ? '-' : '+') + pad(Math.floor(abs / 60), 2) + ':' + pad(abs % 60, 2);
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

