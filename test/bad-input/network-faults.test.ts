// Every command completes through a connection that fails one request in ten — 500, 503 with
// and without Retry-After, 429, a connection reset before or during the answer, a body cut
// short, a request or an answer that stalls, an answer that trickles in — between the CLI and
// a real radosgw. Results are byte-identical, `restic check --read-data` (straight to the
// server) finds nothing, and no blob is listed twice in the index (a retried upload that
// packed its blobs again would be). Adding a command to the matrix is one line in COMMANDS.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { cairn, diffTrees, removeDir, restic, tempDir, type RunResult } from '../helpers/cli';
import { startS3, type S3Server } from '../helpers/s3-server';
import { ALL_FAULTS, startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';
import { initEngine } from '../helpers/engine';
import { openS3FromEnv } from '../../core/backend/s3';
import { Repository } from '../../core/repository/repository';
import { decodeIndex } from '../../core/index/index-file';

interface Step {
  args: (t: { src: string; dir: string }) => string[];
  /** What must hold afterwards (besides exit 0). */
  after?: (r: RunResult, t: { src: string; dir: string }) => Promise<void>;
}

/** The matrix: each command runs through the faults in this order. */
const COMMANDS: Record<string, Step> = {
  backup: { args: ({ src }) => ['backup', src] },
  'backup again (a changed file)': { args: ({ src }) => ['backup', src], after: async (r) => expect(r.stdout).toContain('using parent snapshot') },
  snapshots: { args: () => ['snapshots'], after: async (r) => expect(r.stdout).toContain('2 snapshots') },
  'ls latest': { args: () => ['ls', 'latest'], after: async (r) => expect(r.stdout).toContain('deep.txt') },
  'stats --mode raw-data': { args: () => ['stats', '--mode', 'raw-data'] },
  restore: {
    args: ({ dir }) => ['restore', 'latest', '--target', join(dir, 'restore')],
    after: async (_, { src, dir }) => expect(await diffTrees(src, join(dir, 'restore', src))).toEqual([]),
  },
  'check --read-data': { args: () => ['check', '--read-data'], after: async (r) => expect(r.stdout).toContain('no errors were found') },
};

describe('commands through a connection that fails one request in ten', () => {
  let s3: S3Server, proxy: FaultProxy, dir: string, src: string, env: Record<string, string>;
  const prefix = `faults10-${Date.now()}`;

  beforeAll(async () => {
    s3 = await startS3();
    env = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_DEFAULT_REGION: s3.region };
    dir = await tempDir('faults10');
    src = join(dir, 'src');
    await makeWeirdTree(src, { scale: 1 / 4 });
    // The first contact with a server is never retried after a stall, by design (a server that
    // accepts and never answers is reported at once): the proxy spares that one request.
    proxy = await startFaultProxy(s3.endpoint, {
      seed: 20261204,
      rate: 0.1,
      faults: ALL_FAULTS,
      order: 'cycle',
      spare: (r) => r.method === 'HEAD' && r.url.split('?')[0]!.endsWith('/config'),
      trickle: { pieces: 6, gapMs: 200 },
    });
    const r = await cairn(['-r', `s3:${s3.endpoint}/${s3.bucket}/${prefix}`, 'init'], { env });
    expect(r.code, r.stderr).toBe(0);
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await removeDir(dir);
    await s3?.stop();
  });

  it.each(Object.keys(COMMANDS))('%s', async (name) => {
    const step = COMMANDS[name]!;
    const t = { src, dir };
    if (name.startsWith('backup again')) await writeFile(join(src, 'top.txt'), 'changed\n');
    const r = await cairn(['-r', `s3:${proxy.url}/${s3.bucket}/${prefix}`, '--stuck-request-timeout', '1500ms', ...step.args(t)], { env });
    expect(r.code, r.stderr).toBe(0);
    await step.after?.(r, t);
  });

  it('left a repository restic checks clean, with no blob indexed twice; every fault happened', async () => {
    const c = await restic(['-r', `s3:${s3.endpoint}/${s3.bucket}/${prefix}`, 'check', '--read-data'], { env });
    expect(c.stdout).toContain('no errors were found');
    expect(c.stdout + c.stderr).not.toMatch(/duplicate|not referenced/);
    expect(c.code).toBe(0);
    await initEngine();
    const repo = await Repository.open(openS3FromEnv(`s3:${s3.endpoint}/${s3.bucket}/${prefix}`, env), 'test-password');
    const seen = new Map<string, number>();
    for (const id of await repo.listIDs('index')) {
      for (const p of decodeIndex(await repo.loadJSON('index', id), id))
        for (const b of p.blobs) seen.set(`${b.type}:${b.id}`, (seen.get(`${b.type}:${b.id}`) ?? 0) + 1);
    }
    expect(seen.size).toBeGreaterThan(10);
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
    expect(ALL_FAULTS.filter((f) => proxy.counts[f] === 0)).toEqual([]);
  });
});
