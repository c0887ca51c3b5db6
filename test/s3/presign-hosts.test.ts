// The presign endpoint's two other build outputs (scripts/build-presign.mjs) in front of radosgw:
// the Cloudflare Workers module under workerd (Cloudflare's own runtime, from npm), through which
// an append-only device backs up with the CLI, and the Lambda function-URL handler fed events
// the way a function URL sends them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cairn, ok, removeDir, restic, ROOT, tempDir } from '../helpers/cli';
import { startS3, type S3Server } from '../helpers/s3-server';
import { newToken, tokenHash } from '../../core/presign';

const WORKERD = resolve(ROOT, 'node_modules/.bin/workerd');

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** A capnp text literal. */
const text = (s: string) => JSON.stringify(s);

describe('the presign endpoint as a Workers module and a Lambda handler', () => {
  let s3: S3Server, dir: string, prefix: string, repo: string, configText: string;
  let worker: ChildProcess | undefined;
  let workerUrl: string;
  const token = newToken();
  const admin = newToken();

  beforeAll(async () => {
    s3 = await startS3();
    dir = await tempDir('presign-hosts');
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-presign.mjs'), '--outdir', dir]);
    prefix = `presign-hosts-${Date.now()}`;
    repo = `s3:${s3.endpoint}/${s3.bucket}/${prefix}`;
    configText = JSON.stringify({
      s3: { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, pathStyle: true },
      prefix,
      devices: [
        { name: 'laptop', role: 'append-only', tokenSha256: await tokenHash(token) },
        { name: 'admin', role: 'maintenance', tokenSha256: await tokenHash(admin) },
      ],
    });
    const port = await freePort();
    await writeFile(
      join(dir, 'worker.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .presign) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const presign :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "cloudflare-worker.mjs") ],
  compatibilityDate = "2024-09-23",
  bindings = [
    (name = "CAIRN_PRESIGN_CONFIG", text = ${text(configText)}),
    (name = "CAIRN_S3_ACCESS_KEY_ID", text = ${text(s3.accessKeyId)}),
    (name = "CAIRN_S3_SECRET_ACCESS_KEY", text = ${text(s3.secretAccessKey)}),
  ],
);
`,
    );
    worker = spawn(WORKERD, ['serve', join(dir, 'worker.capnp')], { stdio: ['ignore', 'ignore', 'pipe'] });
    worker.stderr!.resume();
    workerUrl = `http://127.0.0.1:${port}/`;
    // workerd is up once it answers (it binds the socket after compiling the module).
    for (let i = 0; ; i++) {
      const up = await fetch(workerUrl, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
        () => 0,
      );
      if (up === 200) break;
      if (i > 200 || worker.exitCode !== null) throw new Error(`workerd did not start (exit ${worker.exitCode})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    await removeDir(dir);
    await s3?.stop();
  });

  it('under workerd: an append-only device backs up; deleting and overwriting are refused; restic finds it clean', async () => {
    const env = { CAIRN_PRESIGN_TOKEN: token, AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined };
    const via = (args: string[]) => ['-r', repo, '-o', `s3.presign-endpoint=${workerUrl}`, ...args];
    expect(await (await fetch(workerUrl, { headers: { authorization: `Bearer ${token}` } })).json()).toEqual({ device: 'laptop', role: 'append-only', prefix });
    await ok(cairn(via(['init']), { env }));
    await ok(cairn(via(['backup', join(ROOT, 'core/presign')]), { env }));
    const forget = await cairn(via(['forget', '--keep-last', '1']), { env });
    expect(forget.stderr).toMatch(/^NOT_PERMITTED: /);
    const ask = async (body: unknown, bearer = token) =>
      (await fetch(workerUrl, { method: 'POST', headers: { authorization: `Bearer ${bearer}` }, body: JSON.stringify(body) })).status;
    expect(await ask({ method: 'DELETE', key: `${prefix}/config` })).toBe(403);
    expect(await ask({ method: 'PUT', key: `${prefix}/config`, headers: { 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==' } })).toBe(403);
    expect(await ask({ method: 'GET', key: `${prefix}/../x/config` })).toBe(403);
    expect(await ask({ method: 'GET', key: `${prefix}/config` }, 'cairn_wrong')).toBe(401);
    expect(await ask({ method: 'DELETE', key: `${prefix}/config` }, admin)).toBe(200); // signed, not sent
    const res = await fetch(workerUrl, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{"method":' });
    expect(res.status).toBe(400);
    const check = await ok(
      restic(['-r', repo, 'check', '--read-data'], { env: { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey } }),
    );
    expect(check.stdout).toContain('no errors were found');
  }, 180_000);

  it('as a Lambda function-URL handler: answers events with the same rules', async () => {
    const mod = (await import(pathToFileURL(join(dir, 'lambda.mjs')).href)) as typeof import('../../core/presign/lambda');
    const env = { CAIRN_PRESIGN_CONFIG: configText, CAIRN_S3_ACCESS_KEY_ID: s3.accessKeyId, CAIRN_S3_SECRET_ACCESS_KEY: s3.secretAccessKey };
    const handle = mod.lambdaHandler(env);
    const event = (method: string, body?: string, bearer = token, isBase64Encoded = false) => ({
      rawPath: '/',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      requestContext: { http: { method } },
      ...(body === undefined ? {} : { body, isBase64Encoded }),
    });
    expect(JSON.parse((await handle(event('GET'))).body)).toEqual({ device: 'laptop', role: 'append-only', prefix });
    const get = await handle(event('POST', Buffer.from(JSON.stringify({ method: 'GET', key: `${prefix}/config` })).toString('base64'), token, true));
    expect(get.statusCode).toBe(200);
    const config = await fetch((JSON.parse(get.body) as { url: string }).url);
    expect(config.status).toBe(200);
    expect(
      createHash('sha256')
        .update(new Uint8Array(await config.arrayBuffer()))
        .digest('hex'),
    ).toMatch(/^[0-9a-f]{64}$/);
    expect((await handle(event('POST', JSON.stringify({ method: 'DELETE', key: `${prefix}/config` })))).statusCode).toBe(403);
    expect((await handle(event('POST', '{"method":'))).statusCode).toBe(400);
    expect((await handle(event('POST', 'x'.repeat(100_000)))).statusCode).toBe(413);
    expect((await handle(event('POST', '{}', 'cairn_wrong'))).statusCode).toBe(401);
    expect((await mod.lambdaHandler({})(event('GET'))).statusCode).toBe(500); // not configured: fails closed
  });
});
