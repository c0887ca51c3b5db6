// Nothing is ever written half: a backup killed outright (SIGKILL) or interrupted (SIGINT)
// leaves a repository restic check accepts; after SIGINT the packs already stored are
// indexed, so the next backup does not upload them again.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createCipheriv } from 'node:crypto';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CAIRN_BIN, TEST_ENV, cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';

const MiB = 1 << 20;

async function packCount(repo: string): Promise<number> {
  let n = 0;
  for (const d of await readdir(join(repo, 'data'))) n += (await readdir(join(repo, 'data', d))).filter((f) => !f.includes('-tmp-')).length;
  return n;
}

/** Starts a backup and sends `signal` once at least `packs` packs are stored. */
async function interruptedBackup(repo: string, src: string, signal: NodeJS.Signals, packs: number): Promise<number> {
  const p = spawn(process.execPath, [CAIRN_BIN, '-r', repo, 'backup', '--threads', '1', src], { env: { ...process.env, ...TEST_ENV }, stdio: 'ignore' });
  const exited = new Promise<number>((res) => p.on('exit', (code, sig) => res(code ?? (sig === 'SIGKILL' ? 137 : 1))));
  for (;;) {
    if ((await packCount(repo)) >= packs) break;
    const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 20))]);
    if (done) throw new Error('backup finished before it could be interrupted');
  }
  p.kill(signal);
  return exited;
}

describe('an interrupted backup', () => {
  let dir: string, src: string;

  beforeAll(async () => {
    dir = await tempDir('interrupt');
    src = join(dir, 'src');
    await mkdir(src);
    const c = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16));
    for (let i = 0; i < 10; i++) await writeFile(join(src, `f${i}.bin`), c.update(Buffer.alloc(10 * MiB)));
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('killed with SIGKILL leaves a repository restic check accepts', async () => {
    const repo = join(dir, 'killed');
    await ok(cairn(['-r', repo, 'init']));
    expect(await interruptedBackup(repo, src, 'SIGKILL', 2)).toBe(137);
    // A killed process cannot remove its lock; as after a killed restic, `unlock` (cairn's, as
    // restic's) removes the stale lock (same host, dead PID) and nothing else needs repair.
    expect((await cairn(['-r', repo, 'list', 'locks'])).stdout.trim()).not.toBe('');
    expect((await ok(cairn(['-r', repo, 'unlock']))).stdout).toContain('successfully removed 1 locks');
    expect((await cairn(['-r', repo, 'list', 'locks'])).stdout.trim()).toBe('');
    await ok(restic(['-r', repo, 'unlock']));
    const c = await restic(['-r', repo, 'check']);
    expect(c.stdout + c.stderr).toContain('no errors were found');
    expect(c.code).toBe(0);
    // cairn copes too, and a new backup completes.
    await ok(cairn(['-r', repo, 'backup', src]));
    expect((await restic(['-r', repo, 'check', '--read-data'])).code).toBe(0);
  });

  it('interrupted with SIGINT indexes what it stored; the next run reuses it', async () => {
    const repo = join(dir, 'sigint');
    await ok(cairn(['-r', repo, 'init']));
    expect(await interruptedBackup(repo, src, 'SIGINT', 3)).toBe(130);
    expect((await cairn(['-r', repo, 'list', 'locks'])).stdout.trim()).toBe(''); // released
    const c = await restic(['-r', repo, 'check']);
    expect(c.code).toBe(0);
    const indexed = (await ok(restic(['-r', repo, 'list', 'blobs']))).stdout.split('\n').filter((l) => l.startsWith('data ')).length;
    expect(indexed).toBeGreaterThan(0);
    const s = jsonMessage((await ok(cairn(['-r', repo, 'backup', '--json', src]))).stdout, 'summary');
    // Three 16 MiB packs were stored and indexed before the interrupt: at most ~52 MiB of 100 remain.
    expect(s.data_added as number).toBeLessThan(100 * MiB - 40 * MiB);
    const target = join(dir, 'restore');
    await ok(restic(['-r', repo, 'restore', 'latest', '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
    expect((await restic(['-r', repo, 'check', '--read-data'])).code).toBe(0);
  });
});
