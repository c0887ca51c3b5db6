import { describe, expect, it } from 'vitest';
import { EMPTY_SHA256, canonicalQuery, encodePath, presignUrl, signHeaders, uriEncode, type Credentials } from './sigv4';

// AWS's SigV4 test suite (aws-sig-v4-test-suite, as carried in aws-sdk-js-v3's
// signature-v4/src/suite.fixture.ts): service "service", us-east-1, 2015-08-30T12:36:00Z.
// Only the cases about query and header canonicalisation; the path-normalisation cases do
// not apply to S3, which signs paths as they are.
const suiteCreds: Credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const suiteDate = new Date('2015-08-30T12:36:00Z');
const sha = async (s: string) =>
  Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s))), (b) => b.toString(16).padStart(2, '0')).join('');

interface SuiteCase {
  name: string;
  method: string;
  path?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  signature: string;
}

const suite: SuiteCase[] = [
  { name: 'get-vanilla', method: 'GET', signature: '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31' },
  { name: 'post-vanilla', method: 'POST', signature: '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b' },
  {
    name: 'get-vanilla-query-order-key-case',
    method: 'GET',
    query: { Param2: 'value2', Param1: 'value1' },
    signature: 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
  },
  {
    name: 'get-vanilla-query-unreserved',
    method: 'GET',
    query: { '-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz': '-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz' },
    signature: '9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197',
  },
  { name: 'get-vanilla-utf8-query', method: 'GET', query: { ሴ: 'bar' }, signature: '2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04' },
  { name: 'post-vanilla-query', method: 'POST', query: { Param1: 'value1' }, signature: '28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11' },
  { name: 'post-vanilla-query-space', method: 'POST', query: { p: '' }, signature: 'e71688addb58a26418614085fb730ba3faa623b461c17f48f2fbdb9361b94a9b' },
  {
    name: 'post-vanilla-query-nonunreserved',
    method: 'POST',
    query: { '@#$%^': '', '+': '/,?><`";:\\|][{}' },
    signature: '66c82657c86e26fb25238d0e69f011edc4c6df5ae71119d7cb98ed9b87393c1e',
  },
  {
    name: 'get-unreserved',
    method: 'GET',
    path: '/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
    signature: '07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f',
  },
  { name: 'get-utf8', method: 'GET', path: '/ሴ', signature: '8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85' },
  {
    name: 'get-header-key-duplicate',
    method: 'GET',
    headers: { 'My-Header1': 'value2,value2,value1' },
    signature: 'c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea',
  },
  {
    name: 'get-header-value-order',
    method: 'GET',
    headers: { 'My-Header1': 'value4,value1,value3,value2' },
    signature: '08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01',
  },
  {
    name: 'get-header-value-trim',
    method: 'GET',
    headers: { 'My-Header1': ' value1', 'My-Header2': ' "a   b   c"' },
    signature: 'acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736',
  },
  {
    name: 'post-header-key-sort',
    method: 'POST',
    headers: { 'My-Header1': 'value1' },
    signature: 'c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c',
  },
  {
    name: 'post-header-value-case',
    method: 'POST',
    headers: { 'My-Header1': 'VALUE1' },
    signature: 'cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d',
  },
  {
    name: 'post-x-www-form-urlencoded',
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'Param1=value1',
    signature: 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a',
  },
  {
    name: 'post-x-www-form-urlencoded-parameters',
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf8' },
    body: 'Param1=value1',
    signature: '1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe',
  },
];

describe('SigV4 test suite (Authorization header)', () => {
  it.each(suite)('$name', async (c) => {
    const signed = await signHeaders(
      {
        method: c.method,
        host: 'example.amazonaws.com',
        path: c.path ?? '/',
        query: c.query,
        headers: { ...c.headers, 'X-Amz-Date': '20150830T123600Z' },
        credentials: suiteCreds,
        region: 'us-east-1',
        service: 'service',
        date: suiteDate,
      },
      await sha(c.body ?? ''),
    );
    expect(signed.signature).toBe(c.signature);
  });
});

// S3's own examples (examplebucket, 2013-05-24), from "Authenticating Requests" in the S3 API docs.
const s3Creds: Credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const s3Date = new Date('2013-05-24T00:00:00Z');

describe('S3 examples', () => {
  it('presigns GET test.txt for 24 h (query parameters)', async () => {
    const url = await presignUrl({
      method: 'GET',
      host: 'examplebucket.s3.amazonaws.com',
      path: '/test.txt',
      credentials: s3Creds,
      region: 'us-east-1',
      date: s3Date,
      expiresSeconds: 86400,
    });
    expect(url).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('signs GET test.txt with Range bytes=0-9 (Authorization header)', async () => {
    const signed = await signHeaders(
      {
        method: 'GET',
        host: 'examplebucket.s3.amazonaws.com',
        path: '/test.txt',
        headers: { Range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_SHA256 },
        credentials: s3Creds,
        region: 'us-east-1',
        date: s3Date,
      },
      EMPTY_SHA256,
    );
    expect(signed.signature).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('signs a bucket listing GET /?max-keys=2&prefix=J', async () => {
    const signed = await signHeaders(
      {
        method: 'GET',
        host: 'examplebucket.s3.amazonaws.com',
        path: '/',
        query: { 'max-keys': '2', prefix: 'J' },
        headers: { 'x-amz-content-sha256': EMPTY_SHA256 },
        credentials: s3Creds,
        region: 'us-east-1',
        date: s3Date,
      },
      EMPTY_SHA256,
    );
    expect(signed.signature).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });
});

describe('encoding', () => {
  it.each([
    ['abc-._~XYZ019', 'abc-._~XYZ019'],
    ['a b', 'a%20b'],
    ["!'()*", '%21%27%28%29%2A'],
    ['a+b=c&d/e', 'a%2Bb%3Dc%26d%2Fe'],
    ['ü€', '%C3%BC%E2%82%AC'],
  ])('uriEncode(%j) = %s', (input, want) => expect(uriEncode(input)).toBe(want));

  it('encodes path segments once and keeps slashes, dots and empty segments', () => {
    expect(encodePath('/bucket/p re/data/ab/x+y')).toBe('/bucket/p%20re/data/ab/x%2By');
    expect(encodePath('/b/./a//c/')).toBe('/b/./a//c/');
  });

  it('sorts query parameters by encoded name, then value', () => {
    expect(canonicalQuery({ b: '2', a: '1', A: '0', 'a b': 'x y', prefix: 'p/data/' })).toBe('A=0&a=1&a%20b=x%20y&b=2&prefix=p%2Fdata%2F');
  });

  it('rejects expiries S3 would refuse and paths without a leading slash', async () => {
    const p = { method: 'GET', host: 'h', path: '/k', credentials: s3Creds, region: 'us-east-1', date: s3Date };
    await expect(presignUrl({ ...p, expiresSeconds: 0 })).rejects.toThrow(RangeError);
    await expect(presignUrl({ ...p, expiresSeconds: 604801 })).rejects.toThrow(RangeError);
    await expect(presignUrl({ ...p, path: 'k', expiresSeconds: 60 })).rejects.toThrow(TypeError);
  });

  it('puts a session token into the signed query', async () => {
    const url = new URL(
      await presignUrl({
        method: 'GET',
        host: 'h',
        path: '/k',
        credentials: { ...s3Creds, sessionToken: 'tok/+=' },
        region: 'us-east-1',
        date: s3Date,
        expiresSeconds: 60,
      }),
    );
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('tok/+=');
    expect(url.search).toContain('X-Amz-Security-Token=tok%2F%2B%3D');
  });
});
