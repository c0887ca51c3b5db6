// The shipped CLI (bin/cairn running dist/cli, built without test hooks) does the everyday
// round trip with restic 0.14 as the judge: init, backup, snapshots, restore, check, forget
// --prune; restic checks and restores what it wrote, and it reads a repository restic wrote.
// The other interop tests run the test bundle (dist/cli-test); this is the build users get.
// It calibrates scrypt as restic does (~0.5 s per key), so it makes one repository only.
// vitest's globalSetup (test/setup/build-cli.ts) rebuilds dist/cli when any source is newer.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { diffTrees, jsonMessage, ok, removeDir, restic, ROOT, run, tempDir, type RunOptions } from './helpers/cli';
import { seededBytes } from './helpers/seeded';
import { TEST_KDF } from './helpers/test-kdf';

/** What `npm install` users run; TEST_ENV's CAIRN_TEST_KDF=1 is set and must be ignored. */
const shipped = (args: string[], opts?: RunOptions) => run(join(ROOT, 'bin/cairn'), args, opts);

interface Snapshot {
  id: string;
  paths: string[];
}
const snapshots = async (cmd: typeof shipped, repo: string) => JSON.parse((await ok(cmd(['-r', repo, 'snapshots', '--json']))).stdout) as Snapshot[];

async function makeSource(src: string): Promise<void> {
  await mkdir(join(src, 'sub'), { recursive: true });
  await writeFile(join(src, 'notes.txt'), 'notes\n'.repeat(5000));
  await writeFile(join(src, 'empty'), '');
  await writeFile(join(src, 'sub', 'data.bin'), seededBytes('shipped-cli data', 3 << 20));
  await symlink('sub/data.bin', join(src, 'link'));
}

describe('the shipped CLI writes, restic reads', { timeout: 300_000 }, () => {
  let dir: string, src: string, repo: string, first: string;

  beforeAll(async () => {
    dir = await tempDir('shipped-cli');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await makeSource(src);
    await ok(shipped(['-r', repo, 'init']));
    first = jsonMessage((await ok(shipped(['-r', repo, 'backup', '--json', src]))).stdout, 'summary').snapshot_id as string;
  }, 120_000);
  afterAll(() => removeDir(dir));

  it('made a key with calibrated scrypt, not the test bundle’s cheap one', async () => {
    const keys = await readdir(join(repo, 'keys'));
    expect(keys).toHaveLength(1);
    const key = JSON.parse(await readFile(join(repo, 'keys', keys[0]!), 'utf8')) as { kdf: string; N: number };
    expect(key.kdf).toBe('scrypt');
    expect(key.N).toBeGreaterThan(TEST_KDF.N);
  });

  it('lists, restores and checks its backup; restic agrees', async () => {
    expect((await snapshots(shipped, repo)).map((s) => [s.id, s.paths])).toEqual([[first, [src]]]);
    expect((await snapshots(restic, repo)).map((s) => s.id)).toEqual([first]);
    const target = join(dir, 'restore');
    await ok(shipped(['-r', repo, 'restore', first, '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
    const resticTarget = join(dir, 'restic-restore');
    await ok(restic(['-r', repo, 'restore', first, '--target', resticTarget]));
    expect(await diffTrees(src, join(resticTarget, src))).toEqual([]);
    await ok(shipped(['-r', repo, 'check', '--read-data']));
    expect((await ok(restic(['-r', repo, 'check', '--read-data']))).stdout).toContain('no errors were found');
  });

  it('forgets and prunes the older backup; restic finds the rest whole', async () => {
    await writeFile(join(src, 'notes.txt'), 'changed\n'.repeat(3000));
    await writeFile(join(src, 'sub', 'data.bin'), seededBytes('shipped-cli data 2', 1 << 20));
    const second = jsonMessage((await ok(shipped(['-r', repo, 'backup', '--json', src]))).stdout, 'summary').snapshot_id as string;
    expect(second).not.toBe(first);
    await ok(shipped(['-r', repo, 'forget', '--keep-last', '1', '--prune']));
    expect((await snapshots(shipped, repo)).map((s) => s.id)).toEqual([second]);
    expect((await ok(restic(['-r', repo, 'check', '--read-data']))).stdout).toContain('no errors were found');
    // The first backup's 3 MiB were pruned: nothing is left over for restic to remove.
    expect((await ok(restic(['-r', repo, 'prune', '--dry-run']))).stdout).toMatch(/total prune:\s+0 blobs/);
    const target = join(dir, 'restic-restore-2');
    await ok(restic(['-r', repo, 'restore', 'latest', '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
  });
});

describe('the shipped CLI reads what restic wrote', { timeout: 300_000 }, () => {
  let dir: string, src: string, repo: string, id: string;

  beforeAll(async () => {
    dir = await tempDir('shipped-cli-restic');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await makeSource(src);
    await ok(restic(['-r', repo, 'init']));
    await ok(restic(['-r', repo, 'backup', src]));
    id = (await snapshots(restic, repo))[0]!.id;
  }, 120_000);
  afterAll(() => removeDir(dir));

  it('lists, checks and restores it byte-identical', async () => {
    expect((await snapshots(shipped, repo)).map((s) => [s.id, s.paths])).toEqual([[id, [src]]]);
    await ok(shipped(['-r', repo, 'check', '--read-data']));
    const target = join(dir, 'restore');
    await ok(shipped(['-r', repo, 'restore', id, '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
  });
});

/** What node itself saw when bin/cairn started it: its pid and glibc's mmap threshold variable. */
async function startedNode(env: Record<string, string>): Promise<{ spawned: number; pid: number; threshold: string | null }> {
  const dir = await tempDir('shipped-cli-env');
  const probe = join(dir, 'probe.cjs');
  await writeFile(probe, 'console.log(JSON.stringify({ pid: process.pid, threshold: process.env.MALLOC_MMAP_THRESHOLD_ ?? null }));\n');
  try {
    const p = spawn(join(ROOT, 'bin/cairn'), ['version'], { env: { ...process.env, ...env, NODE_OPTIONS: `--require ${probe}` } });
    let out = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    await new Promise((resolve, reject) => p.on('close', resolve).on('error', reject));
    return { spawned: p.pid!, ...(JSON.parse(out.split('\n')[0]!) as { pid: number; threshold: string | null }) };
  } finally {
    await removeDir(dir);
  }
}

describe('bin/cairn', () => {
  it("is node itself (exec), started with glibc's mmap threshold fixed at 128 KiB", async () => {
    const { MALLOC_MMAP_THRESHOLD_: _, ...env } = process.env as Record<string, string>;
    const seen = await startedNode(env);
    expect(seen.pid).toBe(seen.spawned);
    expect(seen.threshold).toBe('131072');
  });

  it('keeps a threshold the user set', async () => {
    expect((await startedNode({ MALLOC_MMAP_THRESHOLD_: '65536' })).threshold).toBe('65536');
  });
});
