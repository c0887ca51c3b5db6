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
