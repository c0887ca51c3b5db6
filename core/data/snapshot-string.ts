// How restic names a snapshot in the messages of copy, rewrite and repair: Snapshot.String()
// ("snapshot 1a2b3c4d of [/home/u /etc] at 2024-05-01 10:00:00.123 +0200 +0200 by u@host"),
// with Go's time.Time.String() for the time.

import type { GoTime } from './go-time';
import type { Snapshot } from './snapshot';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Go's time.Time.String(): "2006-01-02 15:04:05.999999999 -0700 MST" (zone named UTC or by its offset). */
export function goTimeString(t: GoTime): string {
  const c = t.civil();
  const frac = t.nsec ? '.' + pad(t.nsec, 9).replace(/0+$/, '') : '';
  const off = Math.abs(t.offset);
  const zone = `${t.offset < 0 ? '-' : '+'}${pad(Math.floor(off / 3600))}${pad(Math.floor((off % 3600) / 60))}`;
  const year = c.year < 0 ? '-' + pad(-c.year, 4) : pad(c.year, 4);
  return `${year}-${pad(c.month)}-${pad(c.day)} ${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}${frac} ${zone} ${t.offset === 0 ? 'UTC' : zone}`;
}

export function snapshotString(id: string, sn: Snapshot): string {
  return `snapshot ${id.slice(0, 8)} of [${sn.paths.join(' ')}] at ${goTimeString(sn.time)} by ${sn.username ?? ''}@${sn.hostname ?? ''}`;
}
