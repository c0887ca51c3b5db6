import { describe, expect, it, vi } from 'vitest';
import { CairnError } from '../errors';
import type { Backend, Handle } from './backend';
import { backendConformanceSuite, expectBytes, expectCode, listAll } from '../../test/helpers/backend-conformance';
import { withFaults } from '../../test/helpers/fault-backend';
import { MemoryBackend } from './mem';
import { isRetryableError, withRetry, type RetryInfo, type RetryOptions } from './retry';

const h: Handle = { type: 'data', name: 'abcdef' };

/** A virtual clock: sleeping advances time instantly and is recorded. */
function fakeTime(random = 0.5) {
  let now = 0;
  const slept: number[] = [];
  const retries: RetryInfo[] = [];
  const opts: RetryOptions = {
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    random: () => random,
    onRetry: (info) => retries.push(info),
  };
  return { opts, slept, retries, advance: (ms: number) => (now += ms) };
}

/** Counts calls that reach the inner backend and fails them with `errors` in turn. `h` exists in it. */
function scripted(errors: unknown[]) {
  const inner = new MemoryBackend();
  void inner.save(h, new Uint8Array([9])); // MemoryBackend stores synchronously
  let calls = 0;
  const next = () => {
    calls++;
    const e = errors.shift();
    if (e !== undefined) throw e;
  };
  const be: Backend = {
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    save: async (hh, d, o) => (next(), inner.save(hh, d, o)),
    load: async (hh, o) => (next(), inner.load(hh, o)),
    stat: async (hh, o) => (next(), inner.stat(hh, o)),
    remove: async (hh, o) => (next(), inner.remove(hh, o)),
    list: (t, o) => inner.list(t, o),
  };
  return { be, calls: () => calls };
}

const net = (detail?: Record<string, unknown>) => new CairnError('NETWORK', 'connection reset', { retryable: true, detail });

// Retrying on top of a flaky backend still satisfies the whole contract.
backendConformanceSuite('withRetry over a flaky MemoryBackend', async () => ({
  backend: withRetry(withFaults(new MemoryBackend(), { seed: 3, failRate: 0.2, failAfterBytes: 1 << 20 }), {
    ...fakeTime().opts,
    maxAttempts: 30,
  }),
  cleanup: async () => {},
}));

describe('withRetry', () => {
  it('retries retryable failures, calling the inner backend afresh each time', async () => {
    const t = fakeTime();
    const { be, calls } = scripted([net(), net(), net()]);
    const data = new Uint8Array([1, 2, 3]);
    await withRetry(be, t.opts).save(h, data);
    expect(calls()).toBe(4);
    expect(t.retries.map((r) => [r.op, r.target, r.attempt])).toEqual([
      ['save', 'data/abcdef', 1],
      ['save', 'data/abcdef', 2],
      ['save', 'data/abcdef', 3],
    ]);
    expectBytes(await be.load(h), data);
  });

  it('backs off exponentially with full jitter up to the cap', async () => {
    const t = fakeTime(0.5);
    const { be } = scripted(Array.from({ length: 6 }, () => net()));
    await withRetry(be, { ...t.opts, baseDelayMs: 100, maxDelayMs: 1000 }).load(h);
    expect(t.slept).toEqual([50, 100, 200, 400, 500, 500]);

    const zero = fakeTime(0);
    await withRetry(scripted([net(), net()]).be, { ...zero.opts, baseDelayMs: 100 })
      .stat(h)
      .catch(() => {});
    expect(zero.slept).toEqual([0, 0]);
  });

  it('waits at least as long as the server asks (Retry-After)', async () => {
    const t = fakeTime(0.5);
    const { be } = scripted([net({ retryAfterMs: 7000 }), net({ retryAfterMs: 'soon' })]);
    await withRetry(be, { ...t.opts, baseDelayMs: 100 }).stat(h);
    expect(t.slept).toEqual([7000, 100]);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const t = fakeTime();
    const last = net({ n: 5 });
    const { be, calls } = scripted([net(), net(), net(), net(), last, net()]);
    const e = await withRetry(be, { ...t.opts, maxAttempts: 5 })
      .stat(h)
      .catch((err: unknown) => err);
    expect(e).toBe(last);
    expect(calls()).toBe(5);
    expect(t.slept).toHaveLength(4);
  });

  it('gives up when the next attempt would start after maxElapsedMs', async () => {
    const t = fakeTime(1 - Number.EPSILON);
    const { be, calls } = scripted(Array.from({ length: 20 }, () => net()));
    await expectCode(withRetry(be, { ...t.opts, baseDelayMs: 1000, maxElapsedMs: 10_000 }).stat(h), 'NETWORK');
    // Waits of ~1 s, 2 s, 4 s fit in 10 s; the next (~8 s) would not.
    expect(t.slept.length).toBe(3);
    expect(calls()).toBe(4);
  });

  it.each([
    ['NOT_FOUND', new CairnError('NOT_FOUND', 'gone', { retryable: true })],
    ['ACCESS_DENIED', new CairnError('ACCESS_DENIED', 'expired URL', { retryable: true })],
    ['ABORTED', new CairnError('ABORTED', 'cancelled', { retryable: true })],
  ])('never retries %s, whatever the classifier says', async (_, err) => {
    const { be, calls } = scripted([err]);
    const e = await withRetry(be, { ...fakeTime().opts, isRetryable: () => true })
      .stat(h)
      .catch((x: unknown) => x);
    expect(e).toBe(err);
    expect(calls()).toBe(1);
  });

  it.each([
    ['a non-retryable CairnError', new CairnError('MAC_MISMATCH', 'bad')],
    ['a programming error', new RangeError('oops')],
    ['a DOM AbortError', Object.assign(new Error('aborted'), { name: 'AbortError' })],
  ])('does not retry %s by default', async (_, err) => {
    const { be, calls } = scripted([err]);
    const e = await withRetry(be, fakeTime().opts)
      .stat(h)
      .catch((x: unknown) => x);
    expect(e).toBe(err);
    expect(calls()).toBe(1);
  });

  it('classifies network failures as retryable', () => {
    expect(isRetryableError(new TypeError('Failed to fetch'))).toBe(true);
    expect(isRetryableError(new TypeError('fetch failed'))).toBe(true);
    expect(isRetryableError(new TypeError('NetworkError when attempting to fetch resource.'))).toBe(true);
    expect(isRetryableError(new TypeError('Load failed'))).toBe(true);
    expect(isRetryableError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isRetryableError(new CairnError('NETWORK', 'x'))).toBe(true);
    expect(isRetryableError(new CairnError('BACKEND_IO', 'x', { retryable: true }))).toBe(true);
    expect(isRetryableError(new CairnError('BACKEND_IO', 'x'))).toBe(false);
    expect(isRetryableError(new TypeError('x is not a function'))).toBe(false);
    expect(isRetryableError('a string')).toBe(false);
  });

  it('does not call the backend at all with an aborted signal', async () => {
    const { be, calls } = scripted([]);
    const ac = new AbortController();
    ac.abort();
    await expectCode(withRetry(be).save(h, new Uint8Array(1), { signal: ac.signal }), 'ABORTED');
    expect(calls()).toBe(0);
  });

  it('stops at once when aborted during a backoff wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const ac = new AbortController();
      const { be, calls } = scripted([net(), net(), net()]);
      // The default sleep on a fake clock, a 10-minute backoff, and an abort 5 ms into it.
      const retrying = withRetry(be, { baseDelayMs: 600_000, random: () => 0.99, onRetry: () => setTimeout(() => ac.abort(), 5) });
      let settled = false;
      const stat = expectCode(retrying.stat(h, { signal: ac.signal }), 'ABORTED').finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(4);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      await stat;
      expect(vi.getTimerCount()).toBe(0); // the backoff's timer is gone too
      expect(calls()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reports ABORTED, not the inner error, when the signal aborted mid-attempt', async () => {
    const ac = new AbortController();
    const inner = new MemoryBackend();
    const be: Backend = {
      location: 'x',
      connections: 1,
      close: async () => {},
      save: (hh, d, o) => inner.save(hh, d, o),
      load: (hh, o) => inner.load(hh, o),
      remove: (hh, o) => inner.remove(hh, o),
      stat: async () => {
        ac.abort();
        throw net();
      },
      list: (t) => inner.list(t),
    };
    await expectCode(withRetry(be, fakeTime().opts).stat(h, { signal: ac.signal }), 'ABORTED');
  });

  it('restarts a broken listing without repeating names', async () => {
    const inner = new MemoryBackend();
    const names = ['aa', 'bb', 'cc', 'dd', 'ee'];
    for (const name of names) await inner.save({ type: 'locks', name }, new Uint8Array(1));
    const flaky = withFaults(inner, { failFirst: 2, failAfterItems: 2, ops: ['list'] });
    const t = fakeTime();
    const listed = await listAll(withRetry(flaky, t.opts), 'locks');
    expect(listed.map((fi) => fi.name)).toEqual(names);
    expect(flaky.faults).toEqual({ calls: 3, failures: 2 });
    expect(t.retries.map((r) => [r.op, r.target])).toEqual([
      ['list', 'locks'],
      ['list', 'locks'],
    ]);
  });

  it('gets a flaky backend through many operations', async () => {
    const flaky = withFaults(new MemoryBackend(), { seed: 11, failRate: 0.4 });
    const be = withRetry(flaky, { ...fakeTime().opts, maxAttempts: 50 });
    for (let i = 0; i < 50; i++) {
      const hh: Handle = { type: 'index', name: `n${i}` };
      await be.save(hh, new Uint8Array([i]));
      expect((await be.load(hh))[0]).toBe(i);
    }
    expect(flaky.faults.failures).toBeGreaterThan(20);
    expect(await listAll(be, 'index')).toHaveLength(50);
  });
});
