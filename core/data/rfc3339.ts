// RFC3339 / Go's RFC3339Nano text ("2006-01-02T15:04:05.999999999Z07:00": fraction trimmed
// of trailing zeros and dropped when zero, `Z` for offset 0, else ±hh:mm), read and written
// as bytes in place (tree JSON is bytes; a time costs no string), plus the proleptic
// Gregorian calendar arithmetic behind it. GoTime (go-time.ts) is the value type.

export class GoTimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoTimeError';
  }
}

// Days since 1970-01-01 for a proleptic Gregorian date (month may overflow into the next
// year's March: Feb 29 of a common year becomes Mar 1, as Go's time.Date normalises).
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): [number, number, number] {
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

export const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
export const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** What Go's time.Parse(time.RFC3339, …) accepts, before its range checks. */
export const RFC3339_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

// Formatting caches: sibling files mostly share a day and always share a zone.
const DATE = new Uint8Array(11); // "YYYY-MM-DDT" of dateDays
let dateDays = NaN;
const ZONE = new Uint8Array(6); // "±hh:mm" of zoneOffset
let zoneOffset = NaN;

/** The last `width` decimal digits of 0 <= v < 2^31. */
function putDigits(buf: Uint8Array, at: number, v: number, width: number): void {
  for (let k = at + width - 1; k >= at; k--) {
    const q = (v / 10) | 0;
    buf[k] = 0x30 + v - q * 10;
    v = q;
  }
}

function fillDate(days: number): void {
  const [year, month, day] = civilFromDays(days);
  if (year < 0 || year > 9999) throw new GoTimeError(`year outside of range [0,9999]: ${year}`);
  putDigits(DATE, 0, year, 4);
  DATE[4] = 0x2d;
  putDigits(DATE, 5, month, 2);
  DATE[7] = 0x2d;
  putDigits(DATE, 8, day, 2);
  DATE[10] = 0x54;
  dateDays = days;
}

function fillZone(offset: number): void {
  // Go prints whole minutes, truncating toward zero, with the sign of that minute count.
  const zone = Math.trunc(offset / 60);
  const abs = Math.abs(zone);
  ZONE[0] = zone < 0 ? 0x2d : 0x2b;
  putDigits(ZONE, 1, Math.floor(abs / 60), 2);
  ZONE[3] = 0x3a;
  putDigits(ZONE, 4, abs % 60, 2);
  zoneOffset = offset;
}

/** Longest RFC3339Nano text: "2006-01-02T15:04:05.999999999-07:00". */
export const RFC3339_MAX_LENGTH = 35;

/**
 * Writes Go's RFC3339Nano text of a GoTime `t` into `buf` at `p`, which must have
 * RFC3339_MAX_LENGTH bytes of room; returns the position after it. Throws GoTimeError for
 * years outside 0..9999, like time.MarshalJSON.
 */
export function writeRfc3339(t: { sec: number; nsec: number; offset: number }, buf: Uint8Array, p: number): number {
  const local = t.sec + t.offset;
  const days = Math.floor(local / 86400);
  const rem = local - days * 86400;
  if (days !== dateDays) fillDate(days);
  for (let k = 0; k < 11; k++) buf[p++] = DATE[k]!;
  const hour = (rem / 3600) | 0;
  const min = ((rem - hour * 3600) / 60) | 0;
  const sec = rem - hour * 3600 - min * 60;
  buf[p++] = 0x30 + ((hour / 10) | 0);
  buf[p++] = 0x30 + (hour % 10);
  buf[p++] = 0x3a;
  buf[p++] = 0x30 + ((min / 10) | 0);
  buf[p++] = 0x30 + (min % 10);
  buf[p++] = 0x3a;
  buf[p++] = 0x30 + ((sec / 10) | 0);
  buf[p++] = 0x30 + (sec % 10);
  let nsec = t.nsec;
  if (nsec !== 0) {
    // Nine digits with the trailing zeros dropped.
    let width = 9;
    while (nsec % 10 === 0) {
      nsec /= 10;
      width--;
    }
    buf[p++] = 0x2e;
    putDigits(buf, p, nsec, width);
    p += width;
  }
  if (t.offset === 0) {
    buf[p++] = 0x5a;
  } else {
    if (t.offset !== zoneOffset) fillZone(t.offset);
    for (let k = 0; k < 6; k++) buf[p++] = ZONE[k]!;
  }
  return p;
}

const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000];

/** Digits b[at..at+n) as a number, or -1 when one of them is not 0-9. */
function digitsAt(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const d = b[k]! - 0x30;
    if (!(d >= 0 && d <= 9)) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** The result of the last successful parseRfc3339: wall-clock seconds, nanoseconds, offset. */
export const PARSED = { local: 0, nsec: 0, offset: 0 };

/**
 * RFC3339 in b[from..to) as Go's time.Parse reads it: the grammar of RFC3339_PATTERN (extra
 * fraction digits ignored), then Go's range checks. On success the fields are in PARSED.
 */
export function parseRfc3339(b: Uint8Array, from: number, to: number): boolean {
  if (to - from < 20) return false;
  if (b[from + 4] !== 0x2d || b[from + 7] !== 0x2d || b[from + 10] !== 0x54 || b[from + 13] !== 0x3a || b[from + 16] !== 0x3a) {
    return false;
  }
  const year = digitsAt(b, from, 4);
  const month = digitsAt(b, from + 5, 2);
  const day = digitsAt(b, from + 8, 2);
  const hour = digitsAt(b, from + 11, 2);
  const min = digitsAt(b, from + 14, 2);
  const sec = digitsAt(b, from + 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || min < 0 || sec < 0) return false;
  let i = from + 19;
  let nsec = 0;
  const sep = b[i];
  if (sep === 0x2e || sep === 0x2c) {
    const start = ++i;
    while (i < to) {
      const d = b[i]! - 0x30;
      if (!(d >= 0 && d <= 9)) break;
      if (i - start < 9) nsec = nsec * 10 + d;
      i++;
    }
    if (i === start) return false;
    if (i - start < 9) nsec *= POW10[9 - (i - start)]!;
  }
  let offset = 0;
  const z = b[i];
  if (z === 0x5a) {
    if (i + 1 !== to) return false;
  } else if (z === 0x2b || z === 0x2d) {
    if (i + 6 !== to || b[i + 3] !== 0x3a) return false;
    const oh = digitsAt(b, i + 1, 2);
    const om = digitsAt(b, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return false;
    offset = (z === 0x2d ? -1 : 1) * (oh * 3600 + om * 60);
  } else {
    return false;
  }
  const dim = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (dim === undefined || day < 1 || day > dim || hour > 23 || min > 59 || sec > 59) return false;
  PARSED.local = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec;
  PARSED.nsec = nsec;
  PARSED.offset = offset;
  return true;
}
