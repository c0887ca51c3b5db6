// S3Backend's own decisions, against a scripted fetch (the real-server tests are in test/s3).

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isCairnError } from '../../errors';
import { base64Encode } from '../../crypto/base64';
import { testObject } from '../../../test/helpers/backend-conformance';
import { withRetry } from '../retry';
import { md5 } from './md5';
import { S3Backend, type S3BackendOptions } from './s3-backend';
import type { SignRequest, UrlSigner } from './url-signer';

interface Seen {
  url: string;
  init: RequestInit;
}

/** A signer that records requests and numbers its URLs, so each attempt's URL is unique. */
function countingSigner(): UrlSigner & { requests: SignRequest[] } {
  const requests: SignRequest[] = [];
  return {
    requests,
    async sign(req) {
      requests.push(req);
      const q = new URLSearchParams(req.query ?? {});
      q.set('sig', String(requests.length));
      return { url: `https://s3.test/bucket/${req.key}?${q}` };
    },
  };
}

function backend(answer: (url: URL, init: RequestInit, n: number) => Response | Promise<Response>, opts: Partial<S3BackendOptions> = {}) {
  const signer = countingSigner();
  const seen: Seen[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    seen.push({ url: String(input), init });
    return answer(new URL(String(input)), init, seen.length);
  }) as typeof fetch;
  return { be: new S3Backend({ signer, fetch: fetchFn, prefix: '/repo/', ...opts }), signer, seen };
}

async function caught(p: Promise<unknown>) {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

const header = (init: RequestInit, name: string) => (init.headers as Record<string, string>)[name];

describe('S3Backend requests', () => {
  it('PUTs under the prefix with a signed Content-MD5 of the body', async () => {
    const { be, signer, seen } = backend(() => new Response(null, { status: 200 }));
    const { h, data } = await testObject('index', 1, 1000);
    await be.save(h, data);
    const md5b64 = base64Encode(md5(data));
    expect(signer.requests).toEqual([{ method: 'PUT', key: `repo/index/${h.name}`, headers: { 'content-md5': md5b64 } }]);
    expect(seen[0]!.init.method).toBe('PUT');
    expect(header(seen[0]!.init, 'content-md5')).toBe(md5b64);
    expect(seen[0]!.init.body).toBe(data);
  });

  it('moves bodies as Blobs of the same bytes when blobBodies is on (the browser default)', async () => {
    const { be, seen } = backend(() => new Response(null, { status: 200 }), { blobBodies: true });
    const { h, data } = await testObject('index', 1, 1000);
    await be.save(h, data);
    const body = seen[0]!.init.body;
    expect(body).toBeInstanceOf(Blob);
    expect(new Uint8Array(await (body as Blob).arrayBuffer())).toEqual(data);
    const { be: reader } = backend(() => new Response(data.slice(10, 20), { status: 206 }), { blobBodies: true });
    expect(await reader.load(h, { offset: 10, length: 10 })).toEqual(data.slice(10, 20));
  });

  it('with blobBodies, a prepared body is a copy: every attempt sends the bytes as they were, whatever the buffer holds by then', async () => {
    const { be, seen } = backend(
      (_, __, n) => (n < 3 ? new Response('<Error><Code>SlowDown</Code></Error>', { status: 503 }) : new Response(null, { status: 200 })),
      { blobBodies: true },
    );
    const retrying = withRetry(be, { sleep: async () => {}, random: () => 0 });
    const { h, data } = await testObject('data', 2, 5000);
    const buffer = data.slice();
    const body = await retrying.prepare!(buffer);
    expect(body.length).toBe(5000);
    buffer.fill(0); // the next pack, say
    await retrying.save(h, body);
    expect(seen).toHaveLength(3);
    for (const { init } of seen) {
      expect(header(init, 'content-md5')).toBe(base64Encode(md5(data)));
      expect(new Uint8Array(await (init.body as Blob).arrayBuffer())).toEqual(data);
    }
    // Outside browsers nothing is prepared (Node's fetch sends the bytes themselves).
    expect(backend(() => new Response(null), { blobBodies: false }).be.prepare).toBeUndefined();
    // A body prepared elsewhere is refused, not sent as something else.
    const { be: other, seen: none } = backend(() => new Response(null), { blobBodies: true });
    expect(isCairnError(await caught(other.save(h, { length: 3, prepared: new Uint8Array(3) })), 'INTERNAL')).toBe(true);
    expect(none).toHaveLength(0);
  });

  it('signs every attempt afresh when wrapped in withRetry', async () => {
    const { be, signer, seen } = backend((_, __, n) => (n < 3 ? new Response('<Error><Code>SlowDown</Code></Error>', { status: 503 }) : new Response('abc')));
    const retrying = withRetry(be, { sleep: async () => {}, random: () => 0 });
    const bytes = await retrying.load({ type: 'config', name: '' });
    expect(new TextDecoder().decode(bytes)).toBe('abc');
    expect(signer.requests.length).toBe(3);
    expect(new Set(seen.map((s) => s.url)).size).toBe(3);
  });

  it('cuts the range out itself when a server ignores Range', async () => {
    const body = Uint8Array.from({ length: 100 }, (_, i) => i);
    const { be, seen } = backend(() => new Response(body, { status: 200 }));
    const got = await be.load({ type: 'config', name: '' }, { offset: 10, length: 5 });
    expect([...got]).toEqual([10, 11, 12, 13, 14]);
    expect(header(seen[0]!.init, 'range')).toBe('bytes=10-14');
    const past = await caught(be.load({ type: 'config', name: '' }, { offset: 90, length: 20 }));
    expect(isCairnError(past) && [past.code, past.retryable]).toEqual(['BACKEND_IO', false]);
  });

  it('treats a short 206 inside the object as a broken transfer (retryable)', async () => {
    const { be } = backend(() => new Response(new Uint8Array(3), { status: 206, headers: { 'content-range': 'bytes 0-9/100' } }));
    const e = await caught(be.load({ type: 'config', name: '' }, { offset: 0, length: 10 }));
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['NETWORK', true]);
  });

  it('asks for the size when a short 206 hides Content-Range (CORS), and calls it out of range', async () => {
    const { be, seen } = backend((_, init) =>
      init.method === 'HEAD' ? new Response(null, { status: 200, headers: { 'content-length': '95' } }) : new Response(new Uint8Array(5), { status: 206 }),
    );
    const e = await caught(be.load({ type: 'config', name: '' }, { offset: 90, length: 10 }));
    expect(isCairnError(e) && [e.code, e.retryable, e.detail['reason']]).toEqual(['BACKEND_IO', false, 'out-of-range']);
    expect(seen.map((s) => s.init.method)).toEqual(['GET', 'HEAD']);
  });

  it('reads offset === size without a length as empty, via the size in a 416', async () => {
    const { be } = backend(() => new Response(null, { status: 416, headers: { 'content-range': 'bytes */50' } }));
    expect((await be.load({ type: 'config', name: '' }, { offset: 50 })).length).toBe(0);
    const e = await caught(be.load({ type: 'config', name: '' }, { offset: 51 }));
    expect(isCairnError(e) && e.detail['reason']).toBe('out-of-range');
  });

  it('with noOverwrite, sends If-None-Match and takes 412 as "already there" (but not for config)', async () => {
    const { be, signer } = backend(() => new Response(null, { status: 412 }), { noOverwrite: true });
    const { h, data } = await testObject('snapshots', 3, 10);
    await be.save(h, data);
    expect(signer.requests[0]!.headers).toMatchObject({ 'if-none-match': '*' });
    const e = await caught(be.save({ type: 'config', name: '' }, data));
    expect(isCairnError(e, 'ALREADY_EXISTS')).toBe(true);
  });

  it('answers a body that breaks off with NETWORK', async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(5));
        c.error(new TypeError('terminated'));
      },
    });
    const { be } = backend(() => new Response(broken, { status: 200 }));
    const e = await caught(be.load({ type: 'config', name: '' }));
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['NETWORK', true]);
  });

  it('turns an abort during the request into ABORTED', async () => {
    const ac = new AbortController();
    const { be } = backend((_, init) => {
      ac.abort();
      throw init.signal?.reason ?? new DOMException('aborted', 'AbortError');
    });
    const e = await caught(be.stat({ type: 'config', name: '' }, { signal: ac.signal }));
    expect(isCairnError(e, 'ABORTED')).toBe(true);
  });
});

describe('S3Backend listing', () => {
  const id = (c: string) => c.repeat(64);
  const page = (keys: [string, number][], tail: string) =>
    `<ListBucketResult>${keys.map(([k, s]) => `<Contents><Key>${k}</Key><Size>${s}</Size></Contents>`).join('')}${tail}</ListBucketResult>`;

  it('follows continuation tokens and keeps only restic-shaped names', async () => {
    const pages = [
      page(
        [
          [`repo/data/aa/${id('a')}`, 1],
          ['repo/data/stray', 2],
          [`repo/data/bb/x/${id('b')}`, 3],
        ],
        '<IsTruncated>true</IsTruncated><NextContinuationToken>t+1/</NextContinuationToken>',
      ),
      page([[`repo/data/cc/${id('c')}`, 4]], '<IsTruncated>false</IsTruncated>'),
    ];
    const { be, signer } = backend((_, __, n) => new Response(pages[n - 1]));
    const got = [];
    for await (const fi of be.list('data')) got.push(fi);
    expect(got).toEqual([
      { name: id('a'), size: 1 },
      { name: id('c'), size: 4 },
    ]);
    expect(signer.requests.map((r) => r.query)).toEqual([
      { 'list-type': '2', prefix: 'repo/data/', 'max-keys': '1000' },
      { 'list-type': '2', prefix: 'repo/data/', 'max-keys': '1000', 'continuation-token': 't+1/' },
    ]);
    expect(signer.requests.every((r) => r.key === '' && r.method === 'GET')).toBe(true);
  });

  it('continues after the last key when a truncated page has no token', async () => {
    const pages = [
      page([[`repo/keys/${id('1')}`, 1]], '<IsTruncated>true</IsTruncated>'),
      page([[`repo/keys/${id('2')}`, 2]], '<IsTruncated>false</IsTruncated>'),
    ];
    const { be, signer } = backend((_, __, n) => new Response(pages[n - 1]));
    const names = [];
    for await (const fi of be.list('keys')) names.push(fi.name);
    expect(names).toEqual([id('1'), id('2')]);
    expect(signer.requests[1]!.query).toMatchObject({ 'start-after': `repo/keys/${id('1')}` });
  });

  it('reports an unreadable listing as a retryable BACKEND_IO', async () => {
    const { be } = backend(() => new Response('<html>captive portal</html>'));
    const e = await caught(
      (async () => {
        for await (const _ of be.list('index')) void _;
      })(),
    );
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['BACKEND_IO', true]);
  });
});

describe('S3Backend CORS detection', () => {
  // In a browser a CORS refusal and a dead network both surface as `TypeError: Failed to fetch`.
  type Mode = 'cors-blocked' | 'ok' | 'down';
  function browserLike(initial: Mode) {
    let mode = initial;
    let probes = 0;
    const b = backend(
      (_, init) => {
        if (init.mode === 'no-cors') {
          probes++;
          if (mode === 'down') throw new TypeError('Failed to fetch');
          return new Response(null, { status: 200 });
        }
        if (mode === 'ok') return new Response(null, { status: 200, headers: { 'content-length': '3' } });
        throw new TypeError('Failed to fetch');
      },
      { detectCors: true },
    );
    return { ...b, probes: () => probes, set: (m: Mode) => (mode = m) };
  }

  it('says CORS_BLOCKED when a no-cors probe reaches the server', async () => {
    const { be, probes } = browserLike('cors-blocked');
    const e = await caught(be.stat({ type: 'config', name: '' }));
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['CORS_BLOCKED', false]);
    expect(e instanceof Error && e.message).toMatch(/CORS rule must allow origin/);
    expect(probes()).toBe(1);
  });

  it('says NETWORK when the probe fails too', async () => {
    const { be } = browserLike('down');
    const e = await caught(be.stat({ type: 'config', name: '' }));
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['NETWORK', true]);
  });

  it('stops suspecting CORS for a method once it has worked', async () => {
    const b = browserLike('ok');
    await b.be.stat({ type: 'config', name: '' });
    b.set('cors-blocked');
    const e = await caught(b.be.stat({ type: 'config', name: '' }));
    expect(isCairnError(e, 'NETWORK')).toBe(true);
    expect(b.probes()).toBe(0);
    // Another method has not worked yet, so its failure is still probed.
    const { h, data } = await testObject('locks', 9, 10);
    expect(isCairnError(await caught(b.be.save(h, data)), 'CORS_BLOCKED')).toBe(true);
  });

  it('does not probe outside browsers by default', async () => {
    const { be, seen } = backend(() => {
      throw new TypeError('fetch failed');
    });
    const e = await caught(be.stat({ type: 'config', name: '' }));
    expect(isCairnError(e, 'NETWORK')).toBe(true);
    expect(seen.length).toBe(1);
  });
});

describe('S3Backend stuck requests (restic --stuck-request-timeout)', () => {
  // Fake clocks: each limit is checked to the millisecond, on any machine load.
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
  afterEach(() => void vi.useRealTimers());
  /** Runs `p` to completion in the background; `settled()` says whether it has. */
  function track<T>(p: Promise<T>) {
    let done = false;
    const result = p.then(
      (v) => ((done = true), v),
      (e: unknown) => ((done = true), Promise.reject(e)),
    );
    result.catch(() => {});
    return { result, settled: () => done };
  }
  /** Lets the (real, asynchronous) signing run until `n` requests have reached fetch. */
  async function requests(seen: unknown[], n: number) {
    for (let i = 0; seen.length < n; i++) {
      if (i > 10_000) throw new Error(`only ${seen.length} of ${n} requests were sent`);
      await new Promise((r) => setImmediate(r));
    }
  }
  /** A body that sends `chunks` pieces `everyMs` apart, then stalls forever unless `end`; it dies with the request's abort. */
  function trickle(init: RequestInit, chunks: number, everyMs: number, end: boolean): ReadableStream<Uint8Array> {
    let timer: ReturnType<typeof setInterval>;
    return new ReadableStream<Uint8Array>({
      start(c) {
        let sent = 0;
        init.signal?.addEventListener('abort', () => {
          clearInterval(timer);
          c.error(init.signal!.reason);
        });
        timer = setInterval(() => {
          if (sent === chunks) {
            clearInterval(timer);
            if (end) c.close();
            return;
          }
          c.enqueue(new Uint8Array(10).fill(sent++));
        }, everyMs);
      },
    });
  }
  const silent = (init: RequestInit) =>
    new Promise<Response>((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));

  it('abandons a request that gets no answer, as a retryable NETWORK error, after the stuck timeout', async () => {
    const { be, seen } = backend((_, init) => silent(init), { stuckTimeoutMs: 150 });
    const stat = track(be.stat({ type: 'config', name: '' }));
    await requests(seen, 1);
    await vi.advanceTimersByTimeAsync(149);
    expect(stat.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(stat.settled()).toBe(true);
    const e = await caught(stat.result);
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['NETWORK', true]);
    expect((e as Error).message).toMatch(/HEAD config timed out \(no progress for 150 ms\)/);
  });

  it('abandons a body that stops half-way, and keeps one that trickles slowly but steadily', async () => {
    const stalls = backend((_, init) => new Response(trickle(init, 3, 20, false), { status: 200 }), { stuckTimeoutMs: 150 });
    const stalled = track(stalls.be.load({ type: 'config', name: '' }));
    await requests(stalls.seen, 1);
    // Its last byte comes at 60 ms: abandoned at 210, not before.
    await vi.advanceTimersByTimeAsync(209);
    expect(stalled.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const e = await caught(stalled.result);
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['NETWORK', true]);
    // 12 chunks 60 ms apart: 720 ms in all, never 150 ms without a byte.
    const slow = backend((_, init) => new Response(trickle(init, 12, 60, true), { status: 200 }), { stuckTimeoutMs: 150 });
    const loading = track(slow.be.load({ type: 'config', name: '' }));
    await requests(slow.seen, 1);
    await vi.advanceTimersByTimeAsync(780);
    expect(loading.settled()).toBe(true);
    const body = await loading.result;
    expect(body.length).toBe(120);
    expect(body[119]).toBe(11);
  });

  it('gives an upload its bytes at the floor rate before its answer must start', async () => {
    const { h, data } = await testObject('data', 1, 1000);
    const { be, seen } = backend((_, init) => silent(init), { stuckTimeoutMs: 100, minBytesPerSecond: 4000 }); // 1000 bytes: 250 ms more
    const save = track(be.save(h, data));
    await requests(seen, 1);
    await vi.advanceTimersByTimeAsync(349);
    expect(save.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(save.settled()).toBe(true);
    expect(isCairnError(await caught(save.result), 'NETWORK')).toBe(true);
  });

  it('still reports the caller abort as ABORTED, at once', async () => {
    const ac = new AbortController();
    const { be, seen } = backend((_, init) => silent(init), { stuckTimeoutMs: 10_000 });
    const stat = track(be.stat({ type: 'config', name: '' }, { signal: ac.signal }));
    await requests(seen, 1);
    ac.abort();
    await vi.advanceTimersByTimeAsync(0); // no clock time passes
    expect(stat.settled()).toBe(true);
    expect(isCairnError(await caught(stat.result), 'ABORTED')).toBe(true);
  });

  it('retried with withRetry, a stuck attempt is followed by a fresh one that succeeds', async () => {
    const { be, seen } = backend((_, init, n) => (n === 1 ? silent(init) : new Response(new Uint8Array(7), { status: 200 })), { stuckTimeoutMs: 100 });
    const retrying = withRetry(be, { sleep: async () => {}, random: () => 0 });
    const load = track(retrying.load({ type: 'config', name: '' }));
    await requests(seen, 1);
    await vi.advanceTimersByTimeAsync(100);
    await requests(seen, 2);
    expect((await load.result).length).toBe(7);
    expect(seen.length).toBe(2);
  });
});
