// Display formatting shared by the views: restic's time and size styles.

export { formatBytes, formatDuration } from '../../core/progress';

const pad = (n: number) => String(n).padStart(2, '0');

/** "2024-05-01 14:03:22" in this device's time zone, like `restic snapshots`. */
export function formatTime(rfc3339: string): string {
  const d = new Date(rfc3339);
  if (Number.isNaN(d.getTime())) return rfc3339;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function joinPath(path: string[]): string {
  return '/' + path.join('/');
}

/** A file name for a download of `path` in a snapshot ("Photos.zip", "a.txt"). */
export function downloadName(path: string[], kind: 'file' | 'zip', shortId: string): string {
  const base = path.at(-1) ?? `snapshot-${shortId}`;
  return kind === 'zip' ? `${base}.zip` : base;
}

/** A node's time, or '' when the snapshot holds none (the Unix epoch: browsers give folders no time). */
export function formatNodeTime(rfc3339: string): string {
  const t = Date.parse(rfc3339);
  return t === 0 ? '' : formatTime(rfc3339);
}

/** "in 3 h 5 min", "2 days ago", "now": how far `t` is from `now`, to the minute. */
export function formatRelative(t: number, now: number): string {
  const d = t - now;
  const abs = Math.abs(d);
  if (abs < 60_000) return 'now';
  const min = Math.round(abs / 60_000);
  let text: string;
  if (min < 60) text = `${min} min`;
  else if (min < 48 * 60) {
    const h = Math.floor(min / 60);
    const m = min % 60;
    text = m && h < 10 ? `${h} h ${m} min` : `${Math.round(min / 60)} h`;
  } else text = `${Math.round(min / 1440)} days`;
  return d > 0 ? `in ${text}` : `${text} ago`;
}

/** "1 entry", "2 entries". */
export function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
