import { describe, expect, it } from 'vitest';
import { CairnError } from '../../errors';
import { fetchError, parseRetryAfter, responseError, type RequestContext } from './s3-errors';

const ctx = (method = 'GET'): RequestContext => ({ op: 'load', method, key: 'repo/config', target: 'config' });
const xmlError = (code: string, message = '') => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

describe('responseError', () => {
  const table: [string, number, string, string, boolean, RegExp][] = [
    ['NoSuchKey', 404, xmlError('NoSuchKey', 'The specified key does not exist.'), 'NOT_FOUND', false, /config does not exist/],
    ['NoSuchBucket', 404, xmlError('NoSuchBucket'), 'NO_SUCH_BUCKET', false, /bucket name/],
    [
      'SignatureDoesNotMatch',
      403,
      xmlError('SignatureDoesNotMatch', 'The request signature we calculated does not match'),
      'ACCESS_DENIED',
      false,
      /AWS_SECRET_ACCESS_KEY/,
    ],
    ['InvalidAccessKeyId', 403, xmlError('InvalidAccessKeyId'), 'ACCESS_DENIED', false, /AWS_ACCESS_KEY_ID/],
    ['expired URL', 403, xmlError('AccessDenied', 'Request has expired'), 'ACCESS_DENIED', false, /expired.*clock/],
    ['clock skew', 403, xmlError('RequestTimeTooSkewed'), 'ACCESS_DENIED', false, /clock/],
    ['expired session token (400)', 400, xmlError('ExpiredToken'), 'ACCESS_DENIED', false, /AWS_SESSION_TOKEN/],
    ['missing permission', 403, xmlError('AccessDenied', 'Access Denied'), 'ACCESS_DENIED', false, /may not GET/],
    ['quota (radosgw)', 403, xmlError('QuotaExceeded'), 'QUOTA_EXCEEDED', false, /quota/],
    ['cap exceeded (B2)', 403, xmlError('AccessDenied', 'Cannot upload files, storage cap exceeded.'), 'QUOTA_EXCEEDED', false, /quota/],
    ['503 SlowDown', 503, xmlError('SlowDown', 'Please reduce your request rate.'), 'BACKEND_IO', true, /HTTP 503/],
    ['500 without a body', 500, '', 'BACKEND_IO', true, /HTTP 500/],
    ['proxy 502 page', 502, '<html>Bad Gateway</html>', 'BACKEND_IO', true, /HTTP 502/],
    ['408', 408, '', 'BACKEND_IO', true, /408/],
    ['429', 429, '', 'BACKEND_IO', true, /429/],
    ['400 RequestTimeout', 400, xmlError('RequestTimeout'), 'BACKEND_IO', true, /RequestTimeout/],
    ['400 BadDigest', 400, xmlError('BadDigest'), 'BACKEND_IO', true, /BadDigest/],
    ['400 InvalidDigest', 400, xmlError('InvalidDigest'), 'BACKEND_IO', false, /InvalidDigest/],
    ['400 InvalidArgument', 400, xmlError('InvalidArgument'), 'BACKEND_IO', false, /HTTP 400/],
    [
      'URL signed for the wrong region',
      400,
      xmlError('AuthorizationQueryParametersError', "Error parsing the X-Amz-Credential parameter; the region 'us-east-1' is wrong; expecting 'eu-west-1'"),
      'ACCESS_DENIED',
      false,
      /AWS_DEFAULT_REGION=eu-west-1/,
    ],
    ['301 PermanentRedirect', 301, xmlError('PermanentRedirect'), 'BACKEND_IO', false, /regional endpoint/],
  ];
  it.each(table)('%s', async (_, status, body, code, retryable, message) => {
    const e = await responseError(new Response(body || null, { status }), ctx());
    expect(e).toBeInstanceOf(CairnError);
    expect(e.code).toBe(code);
    expect(e.retryable).toBe(retryable);
    expect(e.message).toMatch(message);
    expect(e.op).toBe('load');
    expect(e.detail['status']).toBe(status);
  });

  it('judges body-less HEAD answers by status', async () => {
    expect((await responseError(new Response(null, { status: 404 }), ctx('HEAD'))).code).toBe('NOT_FOUND');
    const denied = await responseError(new Response(null, { status: 403 }), ctx('HEAD'));
    expect(denied.code).toBe('ACCESS_DENIED');
    expect(denied.message).toMatch(/AWS_SECRET_ACCESS_KEY.*clock/);
  });

  it('blames expiry when our own clock says the URL had expired (radosgw gives no reason)', async () => {
    const expired = await responseError(new Response(xmlError('AccessDenied'), { status: 403 }), { ...ctx(), expiresAt: 1000 }, 2000);
    expect(expired.message).toMatch(/expired before it was used.*clock/);
    const fresh = await responseError(new Response(xmlError('AccessDenied'), { status: 403 }), { ...ctx(), expiresAt: 3000 }, 2000);
    expect(fresh.message).toMatch(/may not GET/);
    const wrongKey = await responseError(new Response(xmlError('SignatureDoesNotMatch'), { status: 403 }), { ...ctx(), expiresAt: 1000 }, 2000);
    expect(wrongKey.message).toMatch(/AWS_SECRET_ACCESS_KEY/);
  });

  it('passes Retry-After on as detail.retryAfterMs', async () => {
    const e = await responseError(new Response(xmlError('SlowDown'), { status: 503, headers: { 'retry-after': '7' } }), ctx());
    expect(e.detail['retryAfterMs']).toBe(7000);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    [null, undefined],
    ['', undefined],
    ['12', 12000],
    [' 0 ', 0],
    ['soon', undefined],
    ['Wed, 21 Oct 2015 07:28:10 GMT', 10_000],
    ['Wed, 21 Oct 2015 07:27:00 GMT', 0],
  ] as [string | null, number | undefined][])('%j', (v, want) => expect(parseRetryAfter(v, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(want));
});

describe('fetchError', () => {
  it('is NETWORK and retryable for a failed fetch', () => {
    const e = fetchError(new TypeError('fetch failed'), ctx(), undefined);
    expect([e.code, e.retryable]).toEqual(['NETWORK', true]);
  });
  it('is ABORTED when the signal fired', () => {
    const ac = new AbortController();
    ac.abort();
    expect(fetchError(new DOMException('aborted', 'AbortError'), ctx(), ac.signal).code).toBe('ABORTED');
  });
  it('is CORS_BLOCKED, permanent and naming the origin, when the probe says so', () => {
    const e = fetchError(new TypeError('Failed to fetch'), ctx('PUT'), undefined, true, 'https://app.example');
    expect([e.code, e.retryable]).toEqual(['CORS_BLOCKED', false]);
    expect(e.message).toMatch(/https:\/\/app\.example.*GET PUT HEAD DELETE/);
  });
});
