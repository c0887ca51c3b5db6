import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../errors';
import { endpointSigner } from './endpoint-signer';

function fakeEndpoint(answer: (body: unknown, init: RequestInit) => Response) {
  const calls: { url: string; init: RequestInit; body: unknown }[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const body = JSON.parse(String(init.body));
    calls.push({ url: String(input), init, body });
    return answer(body, init);
  }) as typeof fetch;
  return { fetchFn, calls };
}

const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { 'content-type': 'application/json' } });

async function caught(p: Promise<unknown>) {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('endpointSigner', () => {
  it('POSTs the request as JSON and returns the url and headers', async () => {
    const { fetchFn, calls } = fakeEndpoint(() => json({ url: 'https://bucket.example/k?X-Amz-Signature=1', headers: { authorization: 'x' } }));
    const signer = endpointSigner('https://me.example/presign', fetchFn, { headers: { authorization: 'Bearer t' } });
    const req = { method: 'PUT' as const, key: 'repo/data/ab/abc', headers: { 'content-md5': 'AAA=' } };
    expect(await signer.sign(req)).toEqual({ url: 'https://bucket.example/k?X-Amz-Signature=1', headers: { authorization: 'x' } });
    expect(calls[0]!.url).toBe('https://me.example/presign');
    expect(calls[0]!.init.method).toBe('POST');
    expect(calls[0]!.body).toEqual(req);
    expect(calls[0]!.init.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer t' });
  });

  it("reports a refusal as ACCESS_DENIED with the endpoint's reason", async () => {
    const { fetchFn } = fakeEndpoint(() => json({ error: 'append-only: deleting is not allowed' }, 403));
    const e = await caught(endpointSigner('https://me.example/p', fetchFn).sign({ method: 'DELETE', key: 'repo/data/ab/abc' }));
    expect(isCairnError(e, 'ACCESS_DENIED')).toBe(true);
    expect(isCairnError(e) && e.message).toMatch(/refused DELETE repo\/data\/ab\/abc: append-only/);
    expect(isCairnError(e) && e.retryable).toBe(false);
  });

  it.each([
    [503, true],
    [429, true],
    [400, false],
    [404, false],
  ])('maps HTTP %i to BACKEND_IO, retryable=%s', async (status, retryable) => {
    const { fetchFn } = fakeEndpoint(() => new Response('nope', { status }));
    const e = await caught(endpointSigner('https://me.example/p', fetchFn).sign({ method: 'GET', key: 'k' }));
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['BACKEND_IO', retryable]);
  });

  it.each([
    ['no url', { headers: {} }],
    ['a non-http url', { url: 'javascript:alert(1)' }],
    ['headers that are not strings', { url: 'https://b/k', headers: { a: 1 } }],
  ])('rejects an answer with %s', async (_, body) => {
    const { fetchFn } = fakeEndpoint(() => json(body));
    const e = await caught(endpointSigner('https://me.example/p', fetchFn).sign({ method: 'GET', key: 'k' }));
    expect(isCairnError(e) && e.code).toBe('BACKEND_IO');
  });

  it('reports an unreachable endpoint as NETWORK and an abort as ABORTED', async () => {
    const down = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const e = await caught(endpointSigner('https://me.example/p', down).sign({ method: 'GET', key: 'k' }));
    expect(isCairnError(e) && [e.code, e.retryable]).toEqual(['NETWORK', true]);
    const ac = new AbortController();
    ac.abort();
    const a = await caught(endpointSigner('https://me.example/p', down).sign({ method: 'GET', key: 'k' }, ac.signal));
    expect(isCairnError(a, 'ABORTED')).toBe(true);
  });
});
