import { describe, expect, it } from 'vitest';
import { presignHandler, type AnswerLog } from './handler';
import { tokenHash, type Device } from './devices';

const ID = 'ab'.padEnd(64, '0');
const s3 = { endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'b', accessKeyId: 'AK', secretAccessKey: 'SK', pathStyle: true };

async function setup(origins: string[] = []) {
  let devices: Device[] = [{ name: 'laptop', role: 'append-only', tokenSha256: await tokenHash('tok-laptop') }];
  const log: AnswerLog[] = [];
  const handle = presignHandler({ s3, prefix: 'repo', devices: () => devices, origins, onAnswer: (a) => log.push(a) });
  const post = (body: BodyInit | null, headers: Record<string, string> = { authorization: 'Bearer tok-laptop' }) =>
    handle(new Request('http://ep/', { method: 'POST', headers, body }));
  return { handle, post, log, revoke: () => (devices = []) };
}

const put = JSON.stringify({ method: 'PUT', key: `repo/snapshots/${ID}`, headers: { 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==', 'if-none-match': '*' } });

describe('presignHandler', () => {
  it('signs an allowed request for minutes, covering its headers', async () => {
    const { post } = await setup();
    const res = await post(put);
    expect(res.status).toBe(200);
    const u = new URL(((await res.json()) as { url: string }).url);
    expect(u.pathname).toBe(`/b/repo/snapshots/${ID}`);
    expect(u.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(u.searchParams.get('X-Amz-SignedHeaders')).toBe('content-md5;host;if-none-match');
  });

  it('tells a device who it is', async () => {
    const { handle } = await setup();
    const res = await handle(new Request('http://ep/', { headers: { authorization: 'Bearer tok-laptop' } }));
    expect(await res.json()).toEqual({ device: 'laptop', role: 'append-only', prefix: 'repo' });
  });

  it('refuses missing, wrong and revoked tokens with 401', async () => {
    const { post, revoke, log } = await setup();
    expect((await post(put, {})).status).toBe(401);
    expect((await post(put, { authorization: 'Bearer tok-other' })).status).toBe(401);
    expect((await post(put, { authorization: 'Basic dG9r' })).status).toBe(401);
    expect((await post(put)).status).toBe(200);
    revoke();
    const res = await post(put);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(log.map((l) => l.reason ?? 'ok')).toEqual(['no-token', 'bad-token', 'no-token', 'ok', 'bad-token']);
  });

  it('answers malformed and oversized bodies with a clear 4xx', async () => {
    const { post } = await setup();
    const cases: [BodyInit | null, Record<string, string>, number, string][] = [
      ['{"method":', {}, 400, 'malformed'],
      ['', {}, 400, 'malformed'],
      [new Uint8Array([0x7b, 0xff, 0x7d]), {}, 400, 'malformed'],
      ['"just a string"', {}, 400, 'malformed'],
      [JSON.stringify({ method: 'GET', key: 'repo/config', pad: 'x'.repeat(9000) }), {}, 413, 'too-large'],
      ['{}', { 'content-length': '100000000' }, 413, 'too-large'],
    ];
    for (const [body, headers, status, reason] of cases) {
      const res = await post(body, { authorization: 'Bearer tok-laptop', ...headers });
      expect([res.status, ((await res.json()) as { reason: string }).reason]).toEqual([status, reason]);
    }
  });

  it('answers only GET, POST and preflights, with CORS for listed origins only', async () => {
    const { handle } = await setup(['https://app.example']);
    expect((await handle(new Request('http://ep/', { method: 'PUT', body: '{}' }))).status).toBe(405);
    const pre = await handle(new Request('http://ep/', { method: 'OPTIONS', headers: { origin: 'https://app.example' } }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    const other = await handle(new Request('http://ep/', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } }));
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('fails closed when the devices cannot be read', async () => {
    const handle = presignHandler({
      s3,
      prefix: 'repo',
      devices: () => {
        throw new Error('broken config');
      },
    });
    const res = await handle(new Request('http://ep/', { method: 'POST', headers: { authorization: 'Bearer x' }, body: put }));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('broken config');
  });
});
