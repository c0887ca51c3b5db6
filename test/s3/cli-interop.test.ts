// Interop (a)–(c) over S3: restic and cairn share repositories in a real radosgw bucket,
// spelled `s3:http://host:port/bucket/prefix` with AWS_* credentials exactly as restic reads them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { startS3, type S3Server } from '../helpers/s3-server';

describe('restic and cairn in one bucket', () => {
  let s3: S3Server, dir: string, src: string, env: Record<string, string>;
  const repo = (prefix: string) => `s3:${s3.endpoint}/${s3.bucket}/${prefix}-${Date.now()}`;

  beforeAll(async () => {
    s3 = await startS3();
    env = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_DEFAULT_REGION: s3.region };
    dir = await tempDir('s3-interop');
    src = join(dir, 'src');
    await makeWeirdTree(src, { scale: 1 / 4 });
  }, 180_000);
  afterAll(async () => {
    await removeDir(dir);
    await s3?.stop();
  });

  it('(a) cairn lists and restores byte-identical what restic backed up', async () => {
    const r = repo('a');
    await ok(restic(['-r', r, 'init'], { env }));
    await ok(restic(['-r', r, 'backup', src, '--host', 'h-restic'], { env }));
    const list = JSON.parse((await ok(cairn(['-r', r, 'snapshots', '--json'], { env }))).stdout) as { hostname: string }[];
    expect(list.map((s) => s.hostname)).toEqual(['h-restic']);
    const target = join(dir, 'restore-a');
    await ok(cairn(['-r', r, 'restore', 'latest', '--target', target], { env }));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
    await ok(cairn(['-r', r, 'check', '--read-data'], { env }));
  });

  it('(b) restic checks and restores byte-identical what cairn backed up', async () => {
    const r = repo('b');
    await ok(cairn(['-r', r, 'init'], { env }));
    await ok(cairn(['-r', r, 'backup', src, '--tag', 'via-s3'], { env }));
    const c = await restic(['-r', r, 'check', '--read-data'], { env });
    expect(c.stdout).toContain('no errors were found');
    const list = JSON.parse((await ok(restic(['-r', r, 'snapshots', '--json'], { env }))).stdout) as { tags: string[]; paths: string[] }[];
    expect(list[0]).toMatchObject({ tags: ['via-s3'], paths: [src] });
    const target = join(dir, 'restore-b');
    await ok(restic(['-r', r, 'restore', 'latest', '--target', target], { env }));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
  });

  it('(c) each tool adds no data blob after the other backed up the same files', async () => {
    const r = repo('c');
    const big = join(dir, 'big');
    await mkdir(big);
    await cp(join(src, 'sizes'), join(big, 'sizes'), { recursive: true });
    await ok(restic(['-r', r, 'init'], { env }));
    await ok(restic(['-r', r, 'backup', big], { env }));
    const copy = join(dir, 'big-copy');
    await cp(big, copy, { recursive: true });
    const s = jsonMessage((await ok(cairn(['-r', r, 'backup', '--json', copy], { env }))).stdout, 'summary');
    expect(s.files_read).toBeGreaterThan(0);
    expect(s.data_blobs).toBe(0);
    const copy2 = join(dir, 'big-copy2');
    await cp(big, copy2, { recursive: true });
    const s2 = jsonMessage((await ok(restic(['-r', r, 'backup', '--json', copy2], { env }))).stdout, 'summary');
    expect(s2.data_blobs).toBe(0);
  });

  it('names the fix for a wrong secret and a missing bucket', async () => {
    const wrong = await cairn(['-r', `s3:${s3.endpoint}/${s3.bucket}/x`, 'init'], { env: { ...env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^ACCESS_DENIED: .*secret/i);
    const missing = await cairn(['-r', `s3:${s3.endpoint}/no-such-bucket-here/x`, 'snapshots'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^NO_SUCH_BUCKET: /);
  });
});
