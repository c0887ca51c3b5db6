// A repository's health as the app shows it: the last check's result, kept on this device per
// repository (its config ID), and the sentence that sums it up ("Healthy — checked 3 days ago,
// 10 % of the data read"). Also which of restic's n/t groups of packs the next check reads, so
// that rotating checks read every pack over t runs. Pure: ./check-store.ts keeps the records.
// A record holds counts and pack IDs only: like everything this app keeps on the device, no file
// name in clear (the damaged files are listed from the check's report while it is on screen).

import type { CheckReportView, CheckShare } from '../../workers/api';

/**
 * What is kept of a check: the report's counts and pack IDs, without its problems' messages and
 * the affected paths (they name files), which are only counted.
 */
export interface CheckRecord extends Omit<CheckReportView, 'problems' | 'affected' | 'affectedMore'> {
  repoId: string;
  /** When it finished (epoch ms). */
  at: number;
  /** Damaged files and unreadable folders found, counted over every snapshot holding them. */
  affectedFiles: number;
  affectedFolders: number;
  /** Snapshots holding one of them (of those listed). */
  affectedSnapshots: number;
}

/** Everything kept per repository: the last check, and the last group of packs read of how many. */
export interface CheckState {
  last?: CheckRecord;
  group?: { n: number; t: number };
}

export function checkRecord(repoId: string, r: CheckReportView, at: number): CheckRecord {
  const { problems: _problems, affected, affectedMore, ...rest } = r;
  return {
    ...rest,
    repoId,
    at,
    affectedFiles: affected.filter((a) => a.kind === 'file').length + affectedMore,
    affectedFolders: affected.filter((a) => a.kind === 'tree').length,
    affectedSnapshots: new Set(affected.map((a) => a.snapshot)).size,
  };
}

/** The next group of t to read: after group n comes n+1, after t comes 1 again. */
export function nextGroup(state: CheckState | undefined, t: number): CheckShare {
  const g = state?.group;
  return { kind: 'group', n: g && g.t === t ? (g.n % t) + 1 : 1, t };
}

/** The state after a check of `share` finished with `record`. */
export function afterCheck(state: CheckState | undefined, record: CheckRecord): CheckState {
  const share = record.share;
  return { last: record, group: share.kind === 'group' ? { n: share.n, t: share.t } : state?.group };
}

const plural = (n: number, one: string, many = one + 's') => `${n} ${n === 1 ? one : many}`;

/** "just now", "5 minutes ago", "yesterday", "3 days ago". */
export function ago(then: number, now: number): string {
  const min = Math.max(0, Math.round((now - then) / 60_000));
  if (min < 1) return 'just now';
  if (min < 60) return `${plural(min, 'minute')} ago`;
  const h = Math.round(min / 60);
  if (h < 24) return `${plural(h, 'hour')} ago`;
  const d = Math.round(h / 24);
  return d === 1 ? 'yesterday' : `${d} days ago`;
}

/** How much of the data the check read, in words. */
export function shareRead(r: Pick<CheckRecord, 'share' | 'bytesRead' | 'bytesTotal'>): string {
  if (r.share.kind === 'none') return 'no data read (structure only)';
  if (r.share.kind === 'all' || r.bytesTotal === 0) return 'all the data read';
  const pct = (r.bytesRead / r.bytesTotal) * 100;
  const shown = pct > 0 && pct < 1 ? '< 1' : String(Math.round(pct));
  return `${shown} % of the data read`;
}

export type HealthStatus = 'unknown' | 'healthy' | 'damaged';

export interface Health {
  status: HealthStatus;
  title: string;
  detail: string;
}

/** The repository's health in one line, from its last check. */
export function healthSummary(r: CheckRecord | undefined, now: number): Health {
  if (!r) return { status: 'unknown', title: 'Not checked yet', detail: 'A check reads the repository to make sure everything in it can be restored.' };
  const when = `checked ${ago(r.at, now)}`;
  if (r.ok) {
    const tidy = r.hints ? ` · ${plural(r.hints, 'unused data file')} (freeing space tidies them)` : '';
    return { status: 'healthy', title: 'Healthy', detail: `${when}, ${shareRead(r)}${tidy}` };
  }
  const [files, folders, snaps] = [r.affectedFiles, r.affectedFolders, r.affectedSnapshots];
  const parts = [
    r.damagedPacks.length ? plural(r.damagedPacks.length, 'damaged data file') : plural(r.errors, 'problem'),
    files ? `${plural(files, 'file')} affected` : '',
    folders ? `${plural(folders, 'folder')} unreadable` : '',
    snaps ? `in ${plural(snaps, 'snapshot')}` : '',
  ].filter(Boolean);
  return { status: 'damaged', title: 'Damaged', detail: `${when}: ${parts.join(', ')}` };
}
