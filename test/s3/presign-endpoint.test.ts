// `cairn presign serve` in front of a real radosgw bucket: an append-only laptop backs up and
// restores through it, restic (with the real keys) finds the repository clean, every way the
// laptop could destroy or escape its repository is refused and leaves the bucket byte for byte
// as it was, a revoked token stops at once, a maintenance device prunes, and bad or many
// requests get a clear 4xx without bringing the endpoint down.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { CAIRN_BIN, cairn, diffTrees, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { listObjects, serverSigner, startS3, type S3Server } from '../helpers/s3-server';

interface Endpoint {
  url: string;
  proc: ChildProcess;
  stdout: () => string;
}

async function startEndpoint(config: string, s3: S3Server): Promise<Endpoint> {
  const env = { ...process.env, CAIRN_S3_ACCESS_KEY_ID: s3.accessKeyId, CAIRN_S3_SECRET_ACCESS_KEY: s3.secretAccessKey };
  const proc = spawn(process.execPath, [CAIRN_BIN, 'presign', 'serve', '--config', config, '--listen', '127.0.0.1:0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  proc.stderr!.resume();
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`presign serve exited ${code}: ${out}`)));
  });
  return { url, proc, stdout: () => out };
}

/** Every object under `root` with the SHA-256 of its bytes, fetched with the real keys. */
async function bucketState(s3: S3Server, root: string): Promise<Record<string, string>> {
  const signer = serverSigner(s3);
  const state: Record<string, string> = {};
  for (const o of await listObjects(s3, s3.bucket, root)) {
    const res = await fetch((await signer.sign({ method: 'GET', key: o.key })).url);
    state[o.key] = createHash('sha256')
      .update(new Uint8Array(await res.arrayBuffer()))
      .digest('hex');
  }
  return state;
}

const md5 = (b: Uint8Array | string) => createHash('md5').update(b).digest('base64');

describe('the presign endpoint in front of radosgw', () => {
  let s3: S3Server, dir: string, src: string, config: string, ep: Endpoint;
  let root: string, prefix: string, repo: string;
  const tokens: Record<string, string> = {};
  const realKeys = () => ({ AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_DEFAULT_REGION: s3.region });
  const device = (name: string) => ({ CAIRN_PRESIGN_TOKEN: tokens[name], AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined });
  const via = (args: string[]) => ['-r', repo, '-o', `s3.presign-endpoint=${ep.url}`, ...args];
  const ask = (body: unknown, token = tokens['laptop']!) =>
    fetch(ep.url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    s3 = await startS3();
    dir = await tempDir('presign');
    src = join(dir, 'src');
    await makeWeirdTree(src, { scale: 1 / 8 });
    root = `presign-${Date.now()}`;
    prefix = `${root}/repo`;
    repo = `s3:${s3.endpoint}/${s3.bucket}/${prefix}`;
    config = join(dir, 'presign.json');
    await ok(
      cairn([
        'presign',
        'init',
        '--config',
        config,
        '--s3-endpoint',
        s3.endpoint,
        '--bucket',
        s3.bucket,
        '--region',
        s3.region,
        '--prefix',
        prefix,
        '--path-style',
      ]),
    );
    for (const [name, role] of [
      ['laptop', 'append-only'],
      ['admin', 'maintenance'],
      ['reader', 'read'],
      ['stolen', 'append-only'],
    ]) {
      const r = await ok(cairn(['presign', 'token', 'add', '--config', config, '--name', name!, '--role', role!, '--json']));
      tokens[name!] = (JSON.parse(r.stdout) as { token: string }).token;
    }
    // Something outside the repository that must survive: a neighbour under the same root.
    const { url } = await serverSigner(s3).sign({ method: 'PUT', key: `${root}/other/config` });
    expect((await fetch(url, { method: 'PUT', body: 'neighbour' })).status).toBe(200);
    ep = await startEndpoint(config, s3);
  }, 180_000);

  afterAll(async () => {
    ep?.proc.kill('SIGKILL');
    await removeDir(dir);
    await s3?.stop();
  });

  it('stores only token hashes in its configuration', async () => {
    const text = await readFile(config, 'utf8');
    for (const t of Object.values(tokens)) expect(text).not.toContain(t);
    const list = await ok(cairn(['presign', 'token', 'list', '--config', config]));
    expect(list.stdout).toMatch(/laptop\s+append-only/);
  });

  it('lets an append-only laptop back up twice and restore byte-identical; restic finds it clean', async () => {
    await ok(cairn(via(['init']), { env: device('laptop') }));
    await ok(cairn(via(['backup', src, '--host', 'laptop']), { env: device('laptop') }));
    await writeFile(join(src, 'added-later.txt'), 'a second run adds this\n');
    await ok(cairn(via(['backup', src, '--host', 'laptop']), { env: device('laptop') }));
    const list = JSON.parse((await ok(cairn(via(['snapshots', '--json']), { env: device('laptop') }))).stdout) as unknown[];
    expect(list).toHaveLength(2);
    const target = join(dir, 'restore');
    await ok(cairn(via(['restore', 'latest', '--target', target]), { env: device('laptop') }));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
    const check = await ok(restic(['-r', repo, 'check', '--read-data'], { env: realKeys() }));
    expect(check.stdout).toContain('no errors were found');
  }, 240_000);

  it('refuses every attempt of the laptop to destroy or escape its repository, and the bucket stays byte for byte the same', async () => {
    const before = await bucketState(s3, `${root}/`);
    const keys = Object.keys(before);
    const of = (folder: string) => keys.find((k) => k.startsWith(`${prefix}/${folder}/`))!;
    const [snapshot, pack, index, key] = [of('snapshots'), of('data'), of('index'), of('keys')];
    const ID = 'f'.repeat(64);
    const NEW = { 'content-md5': md5('x'), 'if-none-match': '*' };

    // The CLI refuses up front.
    for (const args of [['forget', '--keep-last', '1'], ['prune'], ['key', 'add'], ['key', 'remove', 'x'], ['tag', '--add', 't', 'latest']]) {
      const r = await cairn(via(args), { env: device('laptop') });
      expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/^NOT_PERMITTED: cairn (forget|prune|key|tag)/)]);
    }

    // The endpoint refuses to sign.
    const refused: [string, unknown, number, string][] = [
      ['delete a snapshot', { method: 'DELETE', key: snapshot }, 403, 'role'],
      ['delete a pack', { method: 'DELETE', key: pack }, 403, 'role'],
      ['delete a key', { method: 'DELETE', key: key }, 403, 'role'],
      ['delete the config', { method: 'DELETE', key: `${prefix}/config` }, 403, 'role'],
      ['overwrite a pack', { method: 'PUT', key: pack, headers: { 'content-md5': md5('x') } }, 403, 'overwrite'],
      ['overwrite an index', { method: 'PUT', key: index, headers: { 'content-md5': md5('x') } }, 403, 'overwrite'],
      ['overwrite a key', { method: 'PUT', key: key, headers: { 'content-md5': md5('x') } }, 403, 'overwrite'],
      ['PUT without content-md5', { method: 'PUT', key: `${prefix}/snapshots/${ID}`, headers: { 'if-none-match': '*' } }, 403, 'no-content-md5'],
      ['../other', { method: 'PUT', key: `${prefix}/../other/config`, headers: NEW }, 403, 'dot-segment'],
      ['%2e%2e', { method: 'PUT', key: `${prefix}/%2e%2e/other/config`, headers: NEW }, 403, 'dot-segment'],
      ['%2E%2E read', { method: 'GET', key: `${prefix}/%2E%2E/other/config` }, 403, 'dot-segment'],
      ['absolute key', { method: 'PUT', key: `/${s3.bucket}/${root}/other/config`, headers: NEW }, 403, 'outside-prefix'],
      ['neighbour key', { method: 'DELETE', key: `${root}/other/config` }, 403, 'outside-prefix'],
      ['other bucket', { method: 'PUT', key: `other-bucket/${prefix}/config`, headers: NEW }, 403, 'outside-prefix'],
      ['other bucket via ..', { method: 'GET', key: `${prefix}/../../../other-bucket/x` }, 403, 'dot-segment'],
      ['a stray file', { method: 'PUT', key: `${prefix}/data/ff/index.html`, headers: NEW }, 403, 'not-repository-file'],
      ['list the bucket', { method: 'GET', key: '', query: { 'list-type': '2', prefix: '' } }, 403, 'outside-prefix'],
      ['list the neighbour', { method: 'GET', key: '', query: { 'list-type': '2', prefix: `${root}/other/` } }, 403, 'outside-prefix'],
      ['sub-resource ?acl', { method: 'PUT', key: `${prefix}/config`, query: { acl: '' }, headers: NEW }, 403, 'forged-query'],
      ['sub-resource ?uploads', { method: 'PUT', key: `${prefix}/data/ff/${ID}`, query: { uploads: '' }, headers: NEW }, 403, 'forged-query'],
      ['?versionId', { method: 'DELETE', key: snapshot, query: { versionId: 'x' } }, 403, 'forged-query'],
      ['x-amz-* query', { method: 'GET', key: `${prefix}/config`, query: { 'X-Amz-Expires': '604800' } }, 403, 'forged-query'],
      ['response-* query', { method: 'GET', key: `${prefix}/config`, query: { 'response-content-type': 'text/html' } }, 403, 'forged-query'],
      [
        'x-amz-* in a listing',
        { method: 'GET', key: '', query: { 'list-type': '2', prefix: `${prefix}/index/`, 'x-amz-request-payer': 'requester' } },
        403,
        'forged-query',
      ],
      ['copy header', { method: 'PUT', key: `${prefix}/data/ff/${ID}`, headers: { ...NEW, 'x-amz-copy-source': `${s3.bucket}/${pack}` } }, 403, 'header'],
      ['bucket in the body', { method: 'GET', key: `${prefix}/config`, bucket: 'other-bucket' }, 400, 'malformed'],
      ['POST method', { method: 'POST', key: `${prefix}/config` }, 400, 'method'],
    ];
    const answers: string[] = [];
    for (const [what, body, status, reason] of refused) {
      const res = await ask(body);
      const got = (await res.json()) as { reason: string };
      answers.push(`${what}: ${res.status} ${got.reason}`);
      expect(`${what}: ${res.status} ${got.reason}`).toBe(`${what}: ${status} ${reason}`);
    }

    // URLs the endpoint does sign cannot be bent by the bucket's client.
    const signed = async (body: unknown) => ((await (await ask(body)).json()) as { url: string }).url;
    const status = async (url: string, init: RequestInit) => {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      return res.status;
    };
    const garbage = 'ransom note';
    const overwrite = await signed({ method: 'PUT', key: pack, headers: { 'content-md5': md5(garbage), 'if-none-match': '*' } });
    expect(await status(overwrite, { method: 'PUT', body: garbage, headers: { 'content-md5': md5(garbage), 'if-none-match': '*' } })).toBe(412);
    expect(await status(overwrite, { method: 'PUT', body: garbage, headers: { 'content-md5': md5(garbage) } })).toBe(403); // dropping the signed header
    const lock = `${prefix}/locks/${ID}`;
    const newLock = await signed({ method: 'PUT', key: lock, headers: { 'content-md5': md5(garbage), 'if-none-match': '*' } });
    const other = new URL(newLock);
    other.pathname = other.pathname.replace(lock, snapshot);
    expect(await status(other.href, { method: 'PUT', body: garbage, headers: { 'content-md5': md5(garbage), 'if-none-match': '*' } })).toBe(403); // URL reused for another key
    expect(await status(newLock, { method: 'PUT', body: 'another body', headers: { 'content-md5': md5(garbage), 'if-none-match': '*' } })).toBe(400); // body not the signed MD5
    const delLock = await signed({ method: 'DELETE', key: lock });
    const delSnapshot = new URL(delLock);
    delSnapshot.pathname = delSnapshot.pathname.replace(lock, snapshot);
    expect(await status(delSnapshot.href, { method: 'DELETE' })).toBe(403); // a lock's DELETE URL aimed at a snapshot
    const readConfig = await signed({ method: 'GET', key: `${prefix}/config` });
    expect(await status(readConfig, { method: 'DELETE' })).toBe(403); // GET URL used to DELETE
    expect(await status(readConfig.replace('/config?', '/config?acl&'), { method: 'PUT', body: '' })).toBe(403); // forged ?acl
    expect(await status(`${readConfig}&response-content-type=text%2Fhtml`, { method: 'GET' })).toBe(403); // forged response-*
    expect(await status(readConfig.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604800'), { method: 'GET' })).toBe(403); // longer life
    expect(await status(readConfig.replace(`/${s3.bucket}/`, '/other-bucket/'), { method: 'GET' })).toBe(403); // other bucket

    expect(await bucketState(s3, `${root}/`)).toEqual(before);
  }, 240_000);

  it('refuses a wrong token and a revoked one at once, without a restart', async () => {
    const body = { method: 'GET', key: `${prefix}/config` };
    expect((await ask(body, tokens['stolen'])).status).toBe(200);
    const t = tokens['stolen']!;
    const wrong = [t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A'), 'cairn_' + 'A'.repeat(43), '', 'x'.repeat(600)];
    for (const w of wrong) expect((await ask(body, w)).status).toBe(401);
    await ok(cairn(['presign', 'token', 'revoke', '--config', config, '--name', 'stolen']));
    expect((await ask(body, tokens['stolen'])).status).toBe(401);
    const r = await cairn(via(['snapshots']), { env: device('stolen') });
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/^ACCESS_DENIED: .*revoked/)]);
    expect((await ask(body)).status).toBe(200); // the others still work
  });

  it('lets a read-only device read (without locks) and nothing more', async () => {
    const r = await ok(cairn(via(['snapshots', '--json']), { env: device('reader') }));
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    const b = await cairn(via(['backup', src]), { env: device('reader') });
    expect([b.code, b.stderr]).toEqual([1, expect.stringMatching(/^NOT_PERMITTED: cairn backup/)]);
  });

  it('answers malformed JSON, huge bodies and a flood of requests with a clear 4xx each, and keeps serving', async () => {
    const post = (body: BodyInit, headers: Record<string, string> = {}) =>
      fetch(ep.url, { method: 'POST', headers: { authorization: `Bearer ${tokens['laptop']}`, ...headers }, body, duplex: 'half' } as RequestInit);
    const cases: [string, () => Promise<Response>, number][] = [
      ['truncated JSON', () => post('{"method":"GET","key":'), 400],
      ['not JSON', () => post('<xml/>'), 400],
      ['invalid UTF-8', () => post(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])), 400],
      ['JSON array', () => post('[]'), 400],
      ['1 MiB body', () => post('x'.repeat(1 << 20)), 413],
      ['streamed 1 MiB body, no length', () => post(new Blob(['{"a":"' + 'x'.repeat(1 << 20) + '"}']).stream() as unknown as BodyInit, {}), 413],
      ['PUT to the endpoint', () => fetch(ep.url, { method: 'PUT', body: '{}' }), 405],
    ];
    for (const [what, send, want] of cases) {
      const res = await send().catch((e: unknown) => ({ status: `failed: ${(e as Error).message}` }) as unknown as Response);
      expect(`${what}: ${res.status}`).toBe(`${what}: ${want}`);
      await res.body?.cancel();
    }
    // 400 requests, 40 at a time, on loopback: wrong tokens, garbage and good requests mixed.
    const kinds = [
      () => ask({ method: 'GET', key: `${prefix}/config` }, 'cairn_wrong'),
      () => post('{{{'),
      () => ask({ method: 'DELETE', key: `${prefix}/config` }),
    ];
    const seen = new Map<number, number>();
    for (let round = 0; round < 10; round++) {
      const batch = await Promise.all(Array.from({ length: 40 }, (_, i) => kinds[i % kinds.length]!()));
      for (const res of batch) {
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        await res.body?.cancel();
      }
    }
    expect([...seen.keys()].every((s) => s >= 400 && s < 500)).toBe(true);
    expect((await ask({ method: 'GET', key: `${prefix}/config` })).status).toBe(200);
    expect(ep.proc.exitCode).toBeNull();
  });

  it('lets a maintenance device forget and prune, after which restic finds the repository clean', async () => {
    await ok(cairn(via(['forget', '--keep-last', '1', '--prune']), { env: device('admin') }));
    const list = JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json'], { env: realKeys() }))).stdout) as unknown[];
    expect(list).toHaveLength(1);
    const check = await ok(restic(['-r', repo, 'check', '--read-data'], { env: realKeys() }));
    expect(check.stdout).toContain('no errors were found');
    expect((await bucketState(s3, `${root}/other/`))[`${root}/other/config`]).toBe(createHash('sha256').update('neighbour').digest('hex'));
  }, 240_000);

  it('stops gracefully on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => ep.proc.on('exit', (code) => resolve(code)));
    ep.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(ep.stdout()).toContain('presign endpoint stopped');
  });
});
