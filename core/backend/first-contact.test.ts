import { describe, expect, it, vi } from 'vitest';
import { CairnError, isCairnError } from '../errors';
import { firstContact, isUnreachable } from './first-contact';
import type { Stater } from './backend';

const refused = () =>
  new CairnError('NETWORK', 'HEAD config did not get through: fetch failed', {
    retryable: true,
    cause: new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }),
  });
const reset = () => new CairnError('NETWORK', 'HEAD config did not get through: other side closed', { retryable: true, cause: new TypeError('fetch failed') });
const status500 = () => new CairnError('BACKEND_IO', 'HEAD config failed with HTTP 500', { retryable: true });

function stater(answers: (() => unknown)[]): Stater & { calls: number } {
  const s = {
    calls: 0,
    async stat(_h: unknown, o?: { signal?: AbortSignal }) {
      const a = answers[s.calls++] ?? answers[answers.length - 1]!;
      const v = a();
      if (v === 'hang') {
        return new Promise<never>((_, reject) => o?.signal?.addEventListener('abort', () => reject(o.signal!.reason), { once: true }));
      }
      if (v instanceof Error) throw v;
      return { name: 'config', size: 100 };
    },
  };
  return s as Stater & { calls: number };
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const noSleep = async () => {};

describe('firstContact', () => {
  it('fails at once, unretried, when the connection is refused', async () => {
    const be = stater([refused]);
    const e = await caught(firstContact(be, 's3:http://h/b', { sleep: noSleep }));
    expect(isCairnError(e, 'NETWORK') && e.message).toMatch(/^cannot reach s3:http:\/\/h\/b: .*fetch failed/);
    expect(be.calls).toBe(1);
    expect(isUnreachable(refused())).toBe(true);
    expect(isUnreachable(reset())).toBe(false);
  });

  it('gives a server that never answers the time limit, once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const be = stater([() => 'hang']);
      let settled = false;
      const result = caught(firstContact(be, 's3:http://h/b', { timeoutMs: 100, sleep: noSleep })).finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(99);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      const e = await result;
      expect(isCairnError(e, 'NETWORK') && e.message).toBe('s3:http://h/b did not answer within 100 ms: check the endpoint and that the server is up');
      expect(be.calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('retries what proves a server is there (500, a reset connection), a few times', async () => {
    const be = stater([status500, reset, () => undefined]);
    await firstContact(be, 'x', { sleep: noSleep });
    expect(be.calls).toBe(3);
    const down = stater([status500]);
    expect(isCairnError(await caught(firstContact(down, 'x', { sleep: noSleep })), 'BACKEND_IO')).toBe(true);
    expect(down.calls).toBe(4);
  });

  it('takes "not found" as an answer, and passes other errors through unchanged', async () => {
    await firstContact(stater([() => new CairnError('NOT_FOUND', 'config does not exist')]), 'x');
    const denied = new CairnError('ACCESS_DENIED', 'denied');
    expect(await caught(firstContact(stater([() => denied]), 'x'))).toBe(denied);
  });

  it('reports the caller abort as ABORTED', async () => {
    const ac = new AbortController();
    const contact = caught(firstContact(stater([() => 'hang']), 'x', { signal: ac.signal, timeoutMs: 5000 }));
    ac.abort(); // while its request hangs (it is made at once)
    const e = await contact;
    expect(isCairnError(e, 'ABORTED')).toBe(true);
  });
});
