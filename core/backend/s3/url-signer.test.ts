import { describe, expect, it } from 'vitest';
import { defaultPathStyle, localSigner } from './url-signer';

const base = { region: 'us-east-1', accessKeyId: 'AK', secretAccessKey: 'SK', now: () => new Date('2024-01-01T00:00:00Z') };

describe('localSigner', () => {
  it("builds path-style URLs, with the endpoint's own path kept", async () => {
    const s = localSigner({ ...base, endpoint: 'http://127.0.0.1:7480/', bucket: 'b', pathStyle: true });
    const u = new URL((await s.sign({ method: 'GET', key: 'repo/data/ab/x y' })).url);
    expect(`${u.origin}${u.pathname}`).toBe('http://127.0.0.1:7480/b/repo/data/ab/x%20y');
    const sub = localSigner({ ...base, endpoint: 'https://gw.example/s3/', bucket: 'b', pathStyle: true });
    expect(new URL((await sub.sign({ method: 'GET', key: '' })).url).pathname).toBe('/s3/b/');
  });

  it('builds virtual-hosted URLs', async () => {
    const s = localSigner({ ...base, endpoint: 'https://s3.eu-west-1.amazonaws.com', bucket: 'my-bucket', pathStyle: false });
    const u = new URL((await s.sign({ method: 'GET', key: '', query: { 'list-type': '2' } })).url);
    expect(u.host).toBe('my-bucket.s3.eu-west-1.amazonaws.com');
    expect(u.pathname).toBe('/');
    expect(u.searchParams.get('list-type')).toBe('2');
  });

  it('signs the requested headers and uses the configured lifetime', async () => {
    const s = localSigner({ ...base, endpoint: 'https://h', bucket: 'b', pathStyle: true, expiresSeconds: 60 });
    const u = new URL((await s.sign({ method: 'PUT', key: 'k', headers: { 'content-md5': 'x', 'if-none-match': '*' } })).url);
    expect(u.searchParams.get('X-Amz-SignedHeaders')).toBe('content-md5;host;if-none-match');
    expect(u.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(u.searchParams.get('X-Amz-Date')).toBe('20240101T000000Z');
  });

  it('gives each moment its own URL', async () => {
    let t = 0;
    const s = localSigner({ ...base, endpoint: 'https://h', bucket: 'b', now: () => new Date(1_700_000_000_000 + 1000 * t++) });
    const a = (await s.sign({ method: 'GET', key: 'k' })).url;
    const b = (await s.sign({ method: 'GET', key: 'k' })).url;
    expect(a).not.toBe(b);
  });

  it('rejects endpoints that are not http(s) and empty bucket names', () => {
    expect(() => localSigner({ ...base, endpoint: 'ftp://h', bucket: 'b' })).toThrow(TypeError);
    expect(() => localSigner({ ...base, endpoint: 'https://h', bucket: '' })).toThrow(TypeError);
  });
});

describe('defaultPathStyle', () => {
  it.each([
    ['https://s3.amazonaws.com', 'my-bucket', false],
    ['https://s3.eu-west-1.amazonaws.com', 'my-bucket', false],
    ['https://s3.amazonaws.com', 'dotted.bucket', true],
    ['https://s3.amazonaws.com', 'Upper', true],
    ['https://s3.us-west-004.backblazeb2.com', 'b', true],
    ['http://127.0.0.1:7480', 'bucket', true],
  ])('%s %s -> %s', (endpoint, bucket, want) => expect(defaultPathStyle(endpoint, bucket)).toBe(want));
});
