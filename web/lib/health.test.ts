import { describe, expect, it } from 'vitest';
import type { CheckReportView } from '../../workers/api';
import { afterCheck, ago, checkRecord, healthSummary, nextGroup, shareRead, type CheckState } from './health';

const DAY = 86_400_000;
const report = (over: Partial<CheckReportView> = {}): CheckReportView => ({
  ok: true,
  share: { kind: 'group', n: 1, t: 10 },
  errors: 0,
  hints: 0,
  snapshots: 3,
  packs: 40,
  packsRead: 4,
  bytesRead: 10_000_000,
  bytesTotal: 100_000_000,
  durationMs: 1200,
  problems: [],
  damagedPacks: [],
  affected: [],
  affectedMore: 0,
  ...over,
});

describe('health summary', () => {
  const now = Date.UTC(2025, 0, 10);

  it('healthy: when and how much was read', () => {
    const r = checkRecord('repo', report(), now - 3 * DAY);
    expect(healthSummary(r, now)).toEqual({ status: 'healthy', title: 'Healthy', detail: 'checked 3 days ago, 10 % of the data read' });
    expect(healthSummary({ ...r, share: { kind: 'all' } }, now).detail).toBe('checked 3 days ago, all the data read');
    expect(healthSummary({ ...r, share: { kind: 'none' }, at: now - 90_000 }, now).detail).toBe('checked 2 minutes ago, no data read (structure only)');
    expect(healthSummary({ ...r, hints: 2 }, now).detail).toContain('2 unused data files (freeing space tidies them)');
  });

  it('damaged: packs, files and snapshots counted', () => {
    const affected = [
      { snapshot: 'a', path: ['d', 'x.txt'], kind: 'file' as const, blob: 'b1' },
      { snapshot: 'b', path: ['d', 'x.txt'], kind: 'file' as const, blob: 'b1' },
      { snapshot: 'b', path: ['d', 'sub'], kind: 'tree' as const, blob: 't1' },
    ];
    const r = checkRecord('repo', report({ ok: false, errors: 2, damagedPacks: ['p'], affected }), now - 5 * 60_000);
    expect(healthSummary(r, now)).toEqual({
      status: 'damaged',
      title: 'Damaged',
      detail: 'checked 5 minutes ago: 1 damaged data file, 2 files affected, 1 folder unreadable, in 2 snapshots',
    });
  });

  it('never checked', () => {
    expect(healthSummary(undefined, now).status).toBe('unknown');
  });

  it('keeps counts, never file names', () => {
    const affected = Array.from({ length: 60 }, (_, i) => ({ snapshot: `s${i % 3}`, path: ['secret', `f${i}`], kind: 'file' as const, blob: 'b' }));
    const r = checkRecord(
      'repo',
      report({ ok: false, affected, affectedMore: 5, problems: [{ kind: 'blob', code: 'MAC_MISMATCH', message: 'secret/f1' }] }),
      now,
    );
    expect(r).toMatchObject({ affectedFiles: 65, affectedFolders: 0, affectedSnapshots: 3 });
    expect(JSON.stringify(r)).not.toContain('secret');
    expect(healthSummary(r, now).detail).toContain('65 files affected, in 3 snapshots');
  });

  it('relative times and shares', () => {
    expect(ago(now - 10_000, now)).toBe('just now');
    expect(ago(now - 60_000, now)).toBe('1 minute ago');
    expect(ago(now - 3 * 3_600_000, now)).toBe('3 hours ago');
    expect(ago(now - DAY, now)).toBe('yesterday');
    expect(shareRead({ share: { kind: 'group', n: 1, t: 10 }, bytesRead: 1, bytesTotal: 1000 })).toBe('< 1 % of the data read');
    expect(shareRead({ share: { kind: 'group', n: 1, t: 10 }, bytesRead: 0, bytesTotal: 0 })).toBe('all the data read');
  });
});

describe('rotating groups', () => {
  it('reads group 1, 2, … t, then 1 again; a new t starts over', () => {
    let state: CheckState | undefined;
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const share = nextGroup(state, 4);
      if (share.kind !== 'group') throw new Error('group expected');
      seen.push(share.n);
      state = afterCheck(state, checkRecord('r', report({ share }), i));
    }
    expect(seen).toEqual([1, 2, 3, 4, 1]);
    expect(nextGroup(state, 10)).toEqual({ kind: 'group', n: 1, t: 10 });
    // A full or structure-only check keeps the rotation where it was.
    const full = afterCheck(state, checkRecord('r', report({ share: { kind: 'all' } }), 9));
    expect(nextGroup(full, 4)).toEqual({ kind: 'group', n: 2, t: 4 });
  });
});
