// When a plan runs next: pure functions over instants (epoch milliseconds) and an IANA time
// zone, so the same answers come out in a browser, in Node's tests and in any zone.
//
// - "every N hours" counts real hours from the last run (a DST night does not stretch it);
// - "daily at HH:MM" and "weekly on days at HH:MM" are wall-clock times in the zone. A time
//   the clocks skip (02:30 on a spring-forward night) runs at the moment they jump (03:00 new
//   time), as cron does; a time that happens twice (01:30 on a fall-back night) runs at its
//   first occurrence only.

export type Schedule =
  | { kind: 'manual' }
  /** Every `every` hours (1–168) after the last run. */
  | { kind: 'hours'; every: number }
  /** Every day at `at` ("HH:MM", 24-hour) in the device's time zone. */
  | { kind: 'daily'; at: string }
  /** On the given weekdays (0 = Sunday … 6 = Saturday) at `at`. */
  | { kind: 'weekly'; days: number[]; at: string };

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** The device's IANA time zone ("Europe/Berlin"); UTC when the browser does not say. */
export function deviceTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** "HH:MM" → minutes after midnight, or undefined when it is not a time of day. */
export function parseTimeOfDay(at: string): number | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(at.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** Why a schedule cannot be used, or undefined when it can. */
export function scheduleProblem(s: Schedule): string | undefined {
  switch (s.kind) {
    case 'manual':
      return undefined;
    case 'hours':
      return Number.isInteger(s.every) && s.every >= 1 && s.every <= 168 ? undefined : 'Choose a whole number of hours from 1 to 168.';
    case 'daily':
      return parseTimeOfDay(s.at) === undefined ? 'Enter the time as HH:MM, for example 21:30.' : undefined;
    case 'weekly':
      if (parseTimeOfDay(s.at) === undefined) return 'Enter the time as HH:MM, for example 21:30.';
      return s.days.length > 0 && s.days.every((d) => Number.isInteger(d) && d >= 0 && d <= 6) ? undefined : 'Choose at least one day.';
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at `instant`, in milliseconds (east positive). */
export function zoneOffset(tz: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']! % 24, parts['minute']!, parts['second']!);
  return wall - Math.floor(instant / 1000) * 1000;
}

/** A calendar day, counted as days since 1970-01-01 (so adding days is plain arithmetic). */
type DayNumber = number;

function localDay(tz: string, instant: number): DayNumber {
  return Math.floor((instant + zoneOffset(tz, instant)) / (24 * HOUR));
}

/**
 * The instant the wall clock in `tz` shows `minutes` after midnight of `day`: the first of two
 * when the time happens twice, the moment the clocks jump when it is skipped.
 */
export function wallTimeToInstant(tz: string, day: DayNumber, minutes: number): number {
  const wall = day * 24 * HOUR + minutes * MINUTE;
  // The offsets in force around that time (a transition moves them by at most a few hours).
  const offsets = [...new Set([zoneOffset(tz, wall - 14 * HOUR), zoneOffset(tz, wall), zoneOffset(tz, wall + 14 * HOUR)])];
  const fits = offsets
    .map((o) => wall - o)
    .filter((t) => zoneOffset(tz, t) === wall - t)
    .sort((a, b) => a - b);
  if (fits.length > 0) return fits[0]!;
  // Skipped: find the transition between the instant read with the old offset and the new one.
  const candidates = offsets.map((o) => wall - o).sort((a, b) => a - b);
  let lo = candidates[0]!;
  let hi = candidates[candidates.length - 1]!;
  const before = zoneOffset(tz, lo);
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2 / 1000) * 1000;
    if (zoneOffset(tz, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The weekday (0 = Sunday) of a day number: 1970-01-01 was a Thursday. */
export function weekday(day: DayNumber): number {
  return (((day + 4) % 7) + 7) % 7;
}

/**
 * The next run strictly after `after` (the last run, or when the plan was made or changed),
 * or undefined for a manual plan or one whose schedule is not valid.
 */
export function nextRun(s: Schedule, after: number, tz: string): number | undefined {
  if (scheduleProblem(s)) return undefined;
  if (s.kind === 'manual') return undefined;
  if (s.kind === 'hours') return after + s.every * HOUR;
  const minutes = parseTimeOfDay(s.at)!;
  const first = localDay(tz, after);
  for (let day = first - 1; day <= first + 8; day++) {
    if (s.kind === 'weekly' && !s.days.includes(weekday(day))) continue;
    const t = wallTimeToInstant(tz, day, minutes);
    if (t > after) return t;
  }
  return undefined; // unreachable for a valid schedule: some day of the next week qualifies
}

/** A plan's schedule in words ("every 6 hours", "daily at 21:30", "Mon, Thu at 08:00"). */
export function describeSchedule(s: Schedule): string {
  switch (s.kind) {
    case 'manual':
      return 'only when started by hand';
    case 'hours':
      return s.every === 1 ? 'every hour' : `every ${s.every} hours`;
    case 'daily':
      return `daily at ${s.at}`;
    case 'weekly': {
      const names = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
      const days = [...s.days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)).map((d) => names[d]);
      return `${days.join(', ')} at ${s.at}`;
    }
  }
}
