import { describe, expect, it } from 'vitest';
import { openS3FromEnv } from './open';

describe('openS3FromEnv', () => {
  it('opens s3:… with AWS_* keys: location, prefix, region and addressing', async () => {
    const urls: string[] = [];
    const fetchFn = (async (input: RequestInfo | URL) => {
      urls.push(String(input));
      return new Response(null, { status: 200, headers: { 'content-length': '155' } });
    }) as typeof fetch;
    const env = { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK' };
    const be = openS3FromEnv('s3:https://s3.eu-west-2.amazonaws.com/my-bucket/restic/repo/', env, { fetch: fetchFn, connections: 8 });
    expect(be.location).toBe('s3:https://s3.eu-west-2.amazonaws.com/my-bucket/restic/repo');
    expect(be.connections).toBe(8);
    expect(await be.stat({ type: 'config', name: '' })).toEqual({ name: 'config', size: 155 });
    const u = new URL(urls[0]!);
    expect(`${u.host}${u.pathname}`).toBe('my-bucket.s3.eu-west-2.amazonaws.com/restic/repo/config');
    expect(u.searchParams.get('X-Amz-Credential')).toMatch(/^AK\/\d{8}\/eu-west-2\/s3\/aws4_request$/);

    const local = openS3FromEnv('s3:http://127.0.0.1:7480/bucket', env, { fetch: fetchFn });
    await local.stat({ type: 'config', name: '' });
    expect(new URL(urls[1]!).pathname).toBe('/bucket/config');
    expect(local.connections).toBe(5);
  });
});
