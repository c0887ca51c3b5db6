import { expect, test } from 'vitest';
import {
  backupRecord,
  checkHistoryRecord,
  failedRecord,
  filterHistory,
  finishedRecord,
  forgetRecords,
  historyJson,
  latest,
  type HistoryRecord,
} from './history';
import type { BackupResultView } from '../../workers/api';

const ctx = {
  repo: 'r1',
  repoLabel: 'Bucket',
  trigger: 'schedule' as const,
  planId: 'p1',
  planName: 'Docs',
  host: 'chrome-linux',
  start: Date.UTC(2025, 5, 2, 8),
};
const summary = {
  filesNew: 2,
  filesChanged: 1,
  filesUnmodified: 3,
  dirsNew: 1,
  dirsChanged: 0,
  dirsUnmodified: 2,
  dataBlobs: 3,
  treeBlobs: 1,
  dataAdded: 1000,
  dataAddedPacked: 600,
  totalFilesProcessed: 6,
  totalBytesProcessed: 5000,
  backupStart: '',
  backupEnd: '',
};
const result: BackupResultView = {
  snapshotId: 'ab'.repeat(32),
  summary,
  filesRead: 3,
  warnings: [{ path: '/Docs/x', code: 'SOURCE_READ', message: 'gone' }],
  durationMs: 1,
};

test('records carry the numbers, the result and why it failed; newest first, filtered', () => {
  const ok = backupRecord(ctx, ctx.start + 2500, result);
  expect(ok).toMatchObject({ kind: 'backup', result: 'warning', files: 6, bytes: 5000, dataAdded: 1000, durationMs: 2500, errors: [{ path: '/Docs/x' }] });
  const failed = failedRecord({ ...ctx, start: ctx.start + 10_000 }, 'backup', ctx.start + 11_000, {
    code: 'ACCESS_DENIED',
    title: 'Access denied',
    text: 'The storage refused',
    retryable: false,
    detail: 'PUT locks/x',
  });
  expect(failed).toMatchObject({ result: 'failure', error: { code: 'ACCESS_DENIED', detail: 'PUT locks/x' } });
  const check = finishedRecord({ ...ctx, planId: undefined, start: ctx.start + 5000 }, 'check', ctx.start + 6000, { result: 'success' });
  const all: HistoryRecord[] = [ok, failed, check];
  expect(filterHistory(all, {}).map((r) => r.kind)).toEqual(['backup', 'check', 'backup']);
  expect(filterHistory(all, { kind: 'check' })).toEqual([check]);
  expect(filterHistory(all, { planId: 'p1' })).toEqual([failed, ok]);
  expect(latest(all, 'backup')).toBe(failed);
  expect(latest(all, 'check')).toBe(check);
});

test('the JSON export uses restic’s field names and exit codes', () => {
  const doc = JSON.parse(historyJson([backupRecord(ctx, ctx.start + 2500, result)], Date.UTC(2025, 5, 3)));
  expect(doc.exported).toBe('2025-06-03T00:00:00.000Z');
  expect(doc.operations[0]).toMatchObject({
    message_type: 'operation',
    command: 'backup',
    start: '2025-06-02T08:00:00.000Z',
    duration: 2.5,
    result: 'warning',
    exit_code: 3,
    total_files_processed: 6,
    data_added: 1000,
    data_added_packed: 600,
    plan: 'Docs',
    host: 'chrome-linux',
  });
});

test('a forget with its prune, and a check, as records and in the export', () => {
  const forget = {
    removed: ['c'.repeat(64), 'd'.repeat(64)],
    failed: ['e'.repeat(64)],
    durationMs: 700,
    forgetMs: 200,
    pruned: { bytesFreed: 9000, packsDeleted: 2, packsRepacked: 1, durationMs: 500 },
  };
  const [f, p] = forgetRecords(ctx, ctx.start + 700, forget, 'keep 2 latest snapshots');
  expect(f).toMatchObject({ kind: 'forget', result: 'warning', snapshotsRemoved: 2, durationMs: 200, errors: [{ code: 'REMOVE_FAILED' }] });
  expect(p).toMatchObject({
    kind: 'prune',
    result: 'success',
    bytesFreed: 9000,
    start: ctx.start + 200,
    durationMs: 500,
    subject: '2 data files deleted, 1 repacked',
  });

  const report = {
    ok: false,
    share: { kind: 'group' as const, n: 2, t: 10 },
    errors: 1,
    hints: 1,
    snapshots: 3,
    packs: 20,
    packsRead: 2,
    bytesRead: 4096,
    bytesTotal: 40960,
    durationMs: 50,
    problems: [
      { kind: 'pack', code: 'PACK_HASH', message: 'pack 1234: hash mismatch, holds /Documents/secret plan.txt', pack: '1234' },
      { kind: 'pack', code: 'UNUSED_PACK', message: 'pack 5678 not referenced in any index', hint: true },
    ],
    damagedPacks: ['1234'],
    affected: [],
    affectedMore: 0,
  };
  const c = checkHistoryRecord(ctx, ctx.start + 50, report);
  expect(c).toMatchObject({
    kind: 'check',
    result: 'failure',
    files: 2,
    bytes: 4096,
    subject: '--read-data-subset 2/10',
    errors: [{ code: 'PACK_HASH', message: 'pack, pack 1234' }],
  });
  expect(JSON.stringify(c)).not.toContain('secret plan');
  expect(checkHistoryRecord(ctx, ctx.start, { ...report, ok: true, problems: [], share: { kind: 'all' } })).toMatchObject({
    result: 'success',
    subject: '--read-data',
    errors: [],
  });

  const json = JSON.parse(historyJson([f!, p!, c], ctx.start)) as { operations: Record<string, unknown>[] };
  expect(json.operations.map((o) => [o['command'], o['snapshots_removed'], o['bytes_freed'], o['exit_code']])).toEqual([
    ['forget', 2, undefined, 3],
    ['prune', undefined, 9000, 0],
    ['check', undefined, undefined, 1],
  ]);
});
