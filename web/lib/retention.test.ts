import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../core/forget';
import type { ForgetRequest, ForgetResultView } from '../../workers/api';
import { applyRetentionAfterBackup, planForgetRequest, policyOf, retentionProblem } from './retention';
import { fromPolicyInput, toPolicyInput } from './policy-form';

describe('a plan’s rules as restic’s forget options', () => {
  it('converts counts, within and tags, leaving out unset and zero counts', () => {
    expect(policyOf({ keepLast: 2, keepDaily: 7, keepWeekly: 0, keepWithin: '1y2m', keepTags: ['important', 'keep'] })).toEqual({
      keepLast: '2',
      keepDaily: '7',
      keepWithin: '1y2m',
      keepTag: ['important', 'keep'],
    });
    expect(policyOf({})).toEqual({});
  });

  it('reads the same as the Retention page’s form does (one representation for the engine)', () => {
    const input = policyOf({ keepLast: 3, keepMonthly: 6, keepTags: ['a'] });
    expect(toPolicyInput(fromPolicyInput(input))).toEqual(input);
    const p = parsePolicy(input);
    expect([p.last, p.monthly, p.tags]).toEqual([3, 6, [['a']]]);
  });

  it('names what restic’s parser refuses', () => {
    expect(retentionProblem({ keepLast: 1.5 })).toMatch(/whole number/);
    expect(retentionProblem({ keepWithin: '3w' })).toMatch(/duration/);
    expect(retentionProblem({ keepLast: 2, keepWithin: '30d' })).toBeUndefined();
  });

  it('scopes a plan’s forget to its host, exact paths and tags, pruning after it', () => {
    expect(planForgetRequest({ rules: { keepLast: 2 }, hostname: 'laptop', paths: ['/B', '/A'], tags: ['daily'] })).toEqual({
      policy: { keepLast: '2' },
      group: { host: 'laptop', paths: ['/B', '/A'], tags: ['daily'] },
      prune: true,
    });
  });
});

describe('applyRetentionAfterBackup', () => {
  const op = { repo: 'r1', repoLabel: 'Bucket', trigger: 'schedule' as const, planId: 'p1', planName: 'Docs', host: 'laptop' };
  const base = { rules: { keepLast: 2 }, hostname: 'laptop', paths: ['/Docs'], tags: [], op };
  const clock = (...times: number[]) => {
    let i = 0;
    return () => times[Math.min(i++, times.length - 1)]!;
  };
  const result = (over: Partial<ForgetResultView>): ForgetResultView => ({ removed: [], failed: [], durationMs: 0, forgetMs: 0, ...over });

  it('does nothing for a plan without rules', async () => {
    let called = false;
    const out = await applyRetentionAfterBackup({ ...base, rules: {}, forget: async () => ((called = true), result({})) });
    expect([out, called]).toEqual([undefined, false]);
  });

  it('records the forget and the prune with their numbers and times', async () => {
    const asked: ForgetRequest[] = [];
    const out = await applyRetentionAfterBackup({
      ...base,
      now: clock(1000, 5000),
      forget: async (req) => {
        asked.push(req);
        return result({
          removed: ['a'.repeat(64)],
          forgetMs: 800,
          durationMs: 4000,
          pruned: { bytesFreed: 1234, packsDeleted: 1, packsRepacked: 0, durationMs: 3200 },
        });
      },
    });
    expect(asked).toEqual([{ policy: { keepLast: '2' }, group: { host: 'laptop', paths: ['/Docs'], tags: [] }, prune: true }]);
    expect(out!.removed).toBe(1);
    expect(out!.bytesFreed).toBe(1234);
    expect(out!.error).toBeUndefined();
    expect(out!.records.map((r) => [r.kind, r.result, r.start, r.durationMs, r.snapshotsRemoved, r.bytesFreed, r.planId, r.trigger])).toEqual([
      ['forget', 'success', 1000, 800, 1, undefined, 'p1', 'schedule'],
      ['prune', 'success', 1800, 3200, undefined, 1234, 'p1', 'schedule'],
    ]);
    expect(out!.records[0]!.subject).toBe('keep 2 latest snapshots');
  });

  it('records nothing removed without a prune (restic prunes only after a removal)', async () => {
    const out = await applyRetentionAfterBackup({ ...base, now: clock(0, 10), forget: async () => result({ forgetMs: 10, durationMs: 10 }) });
    expect(out!.records.map((r) => [r.kind, r.result, r.snapshotsRemoved])).toEqual([['forget', 'success', 0]]);
  });

  it('a failed prune after the removal: the forget succeeded, the prune failed, and the error is returned', async () => {
    const out = await applyRetentionAfterBackup({
      ...base,
      now: clock(0, 900),
      forget: async () =>
        result({ removed: ['b'.repeat(64)], forgetMs: 300, durationMs: 900, pruneError: { code: 'NETWORK', message: 'connection reset', retryable: true } }),
    });
    expect(out!.records.map((r) => [r.kind, r.result, r.start, r.end])).toEqual([
      ['forget', 'success', 0, 300],
      ['prune', 'failure', 300, 900],
    ]);
    expect(out!.records[1]!.error).toMatchObject({ code: 'NETWORK', detail: 'connection reset' });
    expect(out!.error?.code).toBe('NETWORK');
  });

  it('a forget that fails is a failed forget record, and cancelled when aborted', async () => {
    const failed = await applyRetentionAfterBackup({
      ...base,
      now: clock(0, 50),
      forget: async () => Promise.reject({ code: 'LOCKED', message: 'locked by restic', retryable: true }),
    });
    expect(failed!.records.map((r) => [r.kind, r.result, r.error?.code])).toEqual([['forget', 'failure', 'LOCKED']]);
    expect(failed!.error?.code).toBe('LOCKED');
    const aborted = await applyRetentionAfterBackup({
      ...base,
      forget: async () => Promise.reject({ code: 'ABORTED', message: 'cancelled', retryable: false }),
    });
    expect(aborted!.records[0]!.result).toBe('cancelled');
  });
});
