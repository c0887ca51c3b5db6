// Seeded snapshot sets for the retention tests: several hosts with their own zones (Berlin
// and New York with their DST rules, India, UTC, a laptop travelling between Tokyo and
// Los Angeles), times relative to now — hours, days and years back, DST nights, ISO-week
// changes around New Year, month ends, leap days, and some in the future — and tags.
// Every snapshot points at one real tree, so restic's check stays clean.

import { GoTime, type ZoneRules } from '../../core/data/go-time';
import { encodeSnapshot, type Snapshot } from '../../core/data/snapshot';
import { seededRandom } from './fault-backend';
import type { ID } from '../../core/id';
import type { Repository } from '../../core/repository/repository';

const DAY = 86400;
const utc = (y: number, m: number, d: number, h = 0, min = 0) => Date.UTC(y, m - 1, d, h, min) / 1000;

/** Day of month of the last Sunday of a month (m 1-12). */
function lastSunday(y: number, m: number): number {
  const last = new Date(Date.UTC(y, m, 0));
  return last.getUTCDate() - last.getUTCDay();
}

/** The n-th Sunday of a month. */
function nthSunday(y: number, m: number, n: number): number {
  const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
  return 1 + ((7 - first) % 7) + 7 * (n - 1);
}

/** Europe/Berlin since 1996: CEST from the last Sunday of March to the last Sunday of October, 01:00 UTC. */
export const berlin: ZoneRules = (sec) => {
  const y = new Date(sec * 1000).getUTCFullYear();
  return sec >= utc(y, 3, lastSunday(y, 3), 1) && sec < utc(y, 10, lastSunday(y, 10), 1) ? 7200 : 3600;
};

/** America/New_York since 2007: EDT from the second Sunday of March 07:00 UTC to the first Sunday of November 06:00 UTC. */
export const newYork: ZoneRules = (sec) => {
  const y = new Date(sec * 1000).getUTCFullYear();
  return sec >= utc(y, 3, nthSunday(y, 3, 2), 7) && sec < utc(y, 11, nthSunday(y, 11, 1), 6) ? -14400 : -18000;
};

interface Source {
  host: string;
  paths: string[];
  zone: (sec: number, i: number) => number;
}

/** The groups of the default --group-by host,paths; the second has its paths stored unsorted. */
export const SOURCES: Source[] = [
  { host: 'alpha', paths: ['/srv'], zone: berlin },
  { host: 'alpha', paths: ['/home', '/etc'], zone: berlin },
  { host: 'beta', paths: ['/srv'], zone: newYork },
  { host: 'gamma', paths: ['/data'], zone: () => 0 },
  { host: 'delta', paths: ['/srv'], zone: () => 19800 },
  { host: 'nomad', paths: ['/srv'], zone: (_s, i) => (i % 3 === 0 ? -25200 : 32400) },
];

const TAG_SETS: (string[] | undefined)[] = [
  undefined,
  undefined,
  ['daily'],
  ['daily', 'db'],
  ['db', 'daily'],
  ['weekly'],
  ['keep'],
  ['db'],
  ['weekly', 'keep'],
];

/** Wall-clock moments (local y, m, d, h, min) that matter to buckets, within [from, to). */
function calendarEdges(fromSec: number, toSec: number): [number, number, number, number, number][] {
  const out: [number, number, number, number, number][] = [];
  const y0 = new Date(fromSec * 1000).getUTCFullYear();
  const y1 = new Date(toSec * 1000).getUTCFullYear();
  for (let y = y0; y <= y1; y++) {
    const mar = lastSunday(y, 3);
    out.push([y, 3, mar, 1, 30], [y, 3, mar, 3, 30]); // around the spring-forward gap
    out.push([y, 12, 28, 23, 0], [y, 12, 29, 23, 50], [y, 12, 30, 0, 10], [y, 12, 31, 23, 59], [y + 1, 1, 1, 0, 5], [y + 1, 1, 4, 12, 0]);
    out.push([y, 1, 31, 23, 0], [y, 2, 1, 1, 0], [y, 2, 28, 22, 0], [y, 2, 29, 10, 0], [y, 3, 1, 0, 30], [y, 3, 31, 12, 0], [y, 4, 30, 23, 30]);
  }
  return out;
}

/** The instant at which a source's clock shows a wall time (its zone looked up twice, like time.Date). */
function atWallClock(src: Source, [y, m, d, h, min]: number[], i: number): GoTime {
  const wall = utc(y!, m!, d!, h!, min!);
  const first = src.zone(wall, i);
  const offset = src.zone(wall - first, i);
  return GoTime.fromUnix(wall - offset, 0, offset);
}

function momentsOf(src: Source, nowSec: number, random: () => number): GoTime[] {
  const at = (sec: number, i: number) => {
    const whole = Math.floor(sec);
    return GoTime.fromUnix(whole, Math.floor(random() * 1e9), src.zone(whole, i));
  };
  const out: GoTime[] = [];
  let t = nowSec - 3600 - random() * 3600;
  for (let i = 0; i < 12; i++, t -= 3 * 3600 + random() * 3 * 3600) out.push(at(t, out.length)); // hours
  for (let i = 0; i < 18; i++, t -= 0.5 * DAY + random() * 2 * DAY) out.push(at(t, out.length)); // days
  for (let i = 0; i < 22; i++, t -= 15 * DAY + random() * 40 * DAY) out.push(at(t, out.length)); // months and years
  const from = nowSec - 2.5 * 365 * DAY;
  for (const e of calendarEdges(from, nowSec)) if (random() < 0.3) out.push(atWallClock(src, e, out.length));
  for (let y = new Date(from * 1000).getUTCFullYear(); y <= new Date(nowSec * 1000).getUTCFullYear(); y++) {
    // Berlin's repeated hour: 02:40 +02:00, then 02:20 +01:00 forty minutes later
    const oct = lastSunday(y, 10);
    if (random() < 0.6) out.push(at(utc(y, 10, oct, 0, 40), out.length), at(utc(y, 10, oct, 1, 20), out.length));
  }
  if (random() < 0.7) out.push(at(nowSec + 2 * 3600 + random() * 3600, out.length)); // in the future
  if (random() < 0.5) out.push(at(nowSec + 3 * DAY + random() * 40 * DAY, out.length));
  return out.filter((x) => x.sec < nowSec - 2 * 3600 || x.sec > nowSec + 2 * 3600); // nothing near "now"
}

export interface GeneratedSnapshot {
  id: ID;
  snapshot: Snapshot;
}

/** Writes a seeded snapshot set of every source, each snapshot of `tree`. */
export async function writeSnapshotSet(repo: Repository, tree: ID, opts: { seed: number; nowMs: number }): Promise<GeneratedSnapshot[]> {
  const random = seededRandom(opts.seed);
  const nowSec = Math.floor(opts.nowMs / 1000);
  const out: GeneratedSnapshot[] = [];
  for (const src of SOURCES) {
    const seen = new Set<number>();
    for (const time of momentsOf(src, nowSec, random)) {
      if (seen.has(time.sec)) continue; // one snapshot per second and group: restic's order of equal times is its listing order
      seen.add(time.sec);
      const tags = TAG_SETS[Math.floor(random() * TAG_SETS.length)];
      const snapshot: Snapshot = { time, tree, paths: [...src.paths], hostname: src.host, username: 'tester', ...(tags ? { tags: [...tags] } : {}) };
      out.push({ id: await repo.saveJSON('snapshots', encodeSnapshot(snapshot)), snapshot });
    }
  }
  return out;
}
