// S3Backend against a real radosgw: what the server refuses and how we say it, paging,
// ranges, Content-MD5, conditional PUTs, CORS, and the presign-endpoint signer.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCairnError, type CairnError } from '../../core/errors';
import { expectBytes, listAll, testObject } from '../helpers/backend-conformance';
import { S3Backend, endpointSigner, localSigner, type UrlSigner } from '../../core/backend/s3';
import { emptyBucket, serverSigner, signerConfig, startS3, type S3Server } from '../helpers/s3-server';
import { startPresignEndpoint } from './presign-endpoint';

let server: S3Server;
beforeAll(async () => {
  server = await startS3();
});
afterAll(async () => {
  await server?.stop();
});

const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
let n = 0;
const newPrefix = () => `backend-${run}/${n++}`;

async function caught(p: Promise<unknown>): Promise<CairnError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isCairnError(e)) throw new Error(`expected a CairnError, got ${String(e)}`);
  return e;
}

/** A signer whose URLs are changed after signing. */
function tampering(inner: UrlSigner, change: (url: URL) => void): UrlSigner {
  return {
    async sign(req, signal) {
      const url = new URL((await inner.sign(req, signal)).url);
      change(url);
      return { url: url.toString() };
    },
  };
}

describe('S3Backend on radosgw: refusals', () => {
  let prefix: string;
  let obj: Awaited<ReturnType<typeof testObject>>;

  beforeAll(async () => {
    prefix = newPrefix();
    obj = await testObject('snapshots', 1, 100);
    await new S3Backend({ signer: serverSigner(server), prefix }).save(obj.h, obj.data);
  });
  afterAll(() => emptyBucket(server, server.bucket, `${prefix}/`));

  it('refuses a URL whose key was changed after signing: ACCESS_DENIED', async () => {
    const signer = tampering(serverSigner(server), (u) => (u.pathname = u.pathname.replace(/.$/, (c) => (c === '0' ? '1' : '0'))));
    const e = await caught(new S3Backend({ signer, prefix }).load(obj.h));
    expect([e.code, e.retryable, e.detail['s3Code']]).toEqual(['ACCESS_DENIED', false, 'SignatureDoesNotMatch']);
  });

  it('refuses a URL whose lifetime was stretched after signing: ACCESS_DENIED', async () => {
    const signer = tampering(serverSigner(server), (u) => u.searchParams.set('X-Amz-Expires', '604800'));
    const e = await caught(new S3Backend({ signer, prefix }).stat(obj.h));
    expect(e.code).toBe('ACCESS_DENIED');
  });

  it('refuses an expired URL: ACCESS_DENIED naming the clock', async () => {
    const signer = localSigner({ ...signerConfig(server), expiresSeconds: 60, now: () => new Date(Date.now() - 3600_000) });
    const e = await caught(new S3Backend({ signer, prefix }).load(obj.h));
    expect(e.code).toBe('ACCESS_DENIED');
    expect(e.message).toMatch(/expired.*clock/);
  });

  it('refuses a wrong secret key: ACCESS_DENIED naming AWS_SECRET_ACCESS_KEY', async () => {
    const signer = localSigner({ ...signerConfig(server), secretAccessKey: 'not-the-secret' });
    const be = new S3Backend({ signer, prefix });
    const e = await caught(be.load(obj.h));
    expect(e.code).toBe('ACCESS_DENIED');
    expect(e.message).toMatch(/AWS_SECRET_ACCESS_KEY/);
    // HEAD answers have no body to tell why; the message still names the fixes.
    const h = await caught(be.stat(obj.h));
    expect(h.code).toBe('ACCESS_DENIED');
    expect(h.message).toMatch(/AWS_SECRET_ACCESS_KEY/);
  });

  it('refuses an unknown access key: ACCESS_DENIED naming AWS_ACCESS_KEY_ID', async () => {
    const signer = localSigner({ ...signerConfig(server), accessKeyId: 'NOSUCHKEY0000000000' });
    const e = await caught(new S3Backend({ signer, prefix }).load(obj.h));
    expect(e.code).toBe('ACCESS_DENIED');
    expect(e.message).toMatch(/AWS_ACCESS_KEY_ID/);
  });

  it('says NO_SUCH_BUCKET for a bucket that does not exist', async () => {
    const be = new S3Backend({ signer: serverSigner(server, `missing-${run}`) });
    expect((await caught(listAll(be, 'snapshots'))).code).toBe('NO_SUCH_BUCKET');
    expect((await caught(be.load({ type: 'config', name: '' }))).code).toBe('NO_SUCH_BUCKET');
  });

  it('has the server check Content-MD5: a wrong digest is refused (retryable BadDigest)', async () => {
    const be = new S3Backend({ signer: serverSigner(server), prefix, md5: () => new Uint8Array(16) });
    const { h, data } = await testObject('index', 2, 50);
    const e = await caught(be.save(h, data));
    expect([e.code, e.retryable, e.detail['s3Code']]).toEqual(['BACKEND_IO', true, 'BadDigest']);
    expect((await caught(be.stat(h))).code).toBe('NOT_FOUND');
  });
});

describe('S3Backend on radosgw: behaviour', () => {
  it('pages a listing of 1001 data objects with small pages, across sub-directories', async () => {
    const prefix = newPrefix();
    const be = new S3Backend({ signer: serverSigner(server), prefix, pageSize: 97 });
    const objs = await Promise.all(Array.from({ length: 1001 }, (_, i) => testObject('data', 10_000 + i, 8 + (i % 5))));
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < objs.length) {
          const o = objs[next++]!;
          await be.save(o.h, o.data);
        }
      }),
    );
    const listed = await listAll(be, 'data');
    expect(listed.length).toBe(1001);
    expect(listed).toEqual(objs.map((o) => ({ name: o.h.name, size: o.data.length })).sort((a, b) => (a.name < b.name ? -1 : 1)));
    await emptyBucket(server, server.bucket, `${prefix}/`);
  });

  it('reads ranges of a 3 MiB pack byte-exactly', async () => {
    const prefix = newPrefix();
    const be = new S3Backend({ signer: serverSigner(server), prefix });
    const { h, data } = await testObject('data', 7, 3 * 1024 * 1024);
    await be.save(h, data);
    for (const [offset, length] of [
      [0, 1],
      [1, 4096],
      [1024 * 1024 - 3, 1024 * 1024 + 7],
      [data.length - 32, 32],
      [data.length - 1, 0],
    ] as const) {
      const end = length ? offset + length : data.length;
      expectBytes(await be.load(h, { offset, length }), data.subarray(offset, end), `offset ${offset} length ${length}`);
    }
    await emptyBucket(server, server.bucket, `${prefix}/`);
  });

  it('with noOverwrite, never replaces an object: radosgw answers 412', async () => {
    const prefix = newPrefix();
    const be = new S3Backend({ signer: serverSigner(server), prefix, noOverwrite: true });
    const { h, data } = await testObject('keys', 3, 40);
    await be.save(h, data);
    await be.save(h, data);
    await be.save({ type: 'config', name: '' }, data);
    expect((await caught(be.save({ type: 'config', name: '' }, new Uint8Array(3)))).code).toBe('ALREADY_EXISTS');
    expectBytes(await be.load({ type: 'config', name: '' }), data);
    await emptyBucket(server, server.bucket, `${prefix}/`);
  });

  it('has a bucket CORS rule for the app origin that exposes ETag and Content-Range', async () => {
    const { url } = await serverSigner(server).sign({ method: 'PUT', key: 'cors-probe' });
    const preflight = (origin: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-md5,content-type' },
      });
    const ok = await preflight('http://localhost:5173');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(ok.headers.get('access-control-allow-methods')).toMatch(/PUT/);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/ETag/i);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/Content-Range/i);
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('S3Backend on radosgw through a presign endpoint', () => {
  it('works end to end, and an append-only endpoint makes remove fail with ACCESS_DENIED', async () => {
    const prefix = newPrefix();
    const endpoint = await startPresignEndpoint({ signer: serverSigner(server), prefix, appendOnly: true });
    try {
      const be = new S3Backend({ signer: endpointSigner(endpoint.url), prefix });
      const snap = await testObject('snapshots', 4, 300);
      const lock = await testObject('locks', 5, 30);
      await be.save(snap.h, snap.data);
      await be.save(lock.h, lock.data);
      expectBytes(await be.load(snap.h, { offset: 10, length: 20 }), snap.data.subarray(10, 30));
      expect(await listAll(be, 'snapshots')).toEqual([{ name: snap.h.name, size: 300 }]);
      await be.remove(lock.h);
      const e = await caught(be.remove(snap.h));
      expect(e.code).toBe('ACCESS_DENIED');
      expect(e.message).toMatch(/append-only/);
      expect((await be.stat(snap.h)).size).toBe(300);
      expect(endpoint.seen.map((r) => r.method)).toContain('DELETE');
      // Keys outside the repository are refused too.
      const outside = new S3Backend({ signer: endpointSigner(endpoint.url), prefix: `${prefix}-other` });
      expect((await caught(outside.stat(snap.h))).code).toBe('ACCESS_DENIED');
    } finally {
      await endpoint.close();
      await emptyBucket(server, server.bucket, `${prefix}/`);
    }
  });
});
