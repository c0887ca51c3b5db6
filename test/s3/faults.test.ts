// Faults between client and server: a share of requests answered 500/503 or broken off
// half-way (request or response). The backup still completes (retry with backoff, a fresh
// presigned URL per attempt), restores byte-identical, and the index lists no pack that is
// not in the bucket (restic check --read-data agrees).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { cairn, diffTrees, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { startS3, type S3Server } from '../helpers/s3-server';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';

describe('an unreliable connection to the bucket', () => {
  let s3: S3Server, proxy: FaultProxy, dir: string, src: string, env: Record<string, string>;

  beforeAll(async () => {
    s3 = await startS3();
    env = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_DEFAULT_REGION: s3.region };
    dir = await tempDir('s3-faults');
    src = join(dir, 'src');
    await makeWeirdTree(src, { scale: 1 / 4 });
    proxy = await startFaultProxy(s3.endpoint, { seed: 20261129, rate: 0.2 });
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await removeDir(dir);
    await s3?.stop();
  });

  it('backs up, restores and checks despite 500s, 503s and broken connections', async () => {
    const prefix = `faulty-${Date.now()}`;
    const viaProxy = `s3:${proxy.url}/${s3.bucket}/${prefix}`;
    const direct = `s3:${s3.endpoint}/${s3.bucket}/${prefix}`;
    await ok(cairn(['-r', viaProxy, 'init'], { env }));
    await ok(cairn(['-r', viaProxy, 'backup', src], { env }));
    const target = join(dir, 'restore');
    await ok(cairn(['-r', viaProxy, 'restore', 'latest', '--target', target], { env }));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
    // Reading every pack through the faults: retried, not reported as damage.
    const own = await cairn(['-r', viaProxy, 'check', '--read-data'], { env });
    expect(own.stdout).toContain('no errors were found');
    expect(own.code).toBe(0);
    // Every kind of fault actually happened.
    for (const f of ['status500', 'status503', 'resetRequest', 'resetResponse'] as const) expect(proxy.counts[f], f).toBeGreaterThan(0);
    // Straight to the server: the index lists only packs that exist, all intact.
    const c = await restic(['-r', direct, 'check', '--read-data'], { env });
    expect(c.stdout).toContain('no errors were found');
    expect(c.code).toBe(0);
  }, 300_000);
});
