// restic's bucket functions (snapshot_policy.go ymdh, ymd, yw, ym, y, always): the number of
// the period a snapshot falls in, read from its time in the UTC offset it was stored with —
// the wall clock of the machine that made it, never converted to UTC or to this machine's
// zone. Weeks are ISO 8601 weeks numbered within their ISO year.

import type { GoTime } from '../data/go-time';

/** A period number: equal for two snapshots in the same period. `nr` is the position in the group. */
export type Bucket = (t: GoTime, nr: number) => number;

/** YYYYMMDDHH */
export const hourBucket: Bucket = (t) => {
  const c = t.civil();
  return c.year * 1_000_000 + c.month * 10_000 + c.day * 100 + c.hour;
};

/** YYYYMMDD */
export const dayBucket: Bucket = (t) => {
  const c = t.civil();
  return c.year * 10_000 + c.month * 100 + c.day;
};

/** ISO year × 100 + ISO week */
export const weekBucket: Bucket = (t) => {
  const w = t.isoWeek();
  return w.year * 100 + w.week;
};

/** YYYYMM */
export const monthBucket: Bucket = (t) => {
  const c = t.civil();
  return c.year * 100 + c.month;
};

export const yearBucket: Bucket = (t) => t.civil().year;

/** Every snapshot its own period (--keep-last). */
export const eachBucket: Bucket = (_t, nr) => nr;
