// Prune needs the repository to itself: restic refuses to prune while cairn backs up (cairn's
// backup holds a non-exclusive lock restic honours), and cairn refuses to prune while restic
// holds a lock, naming who holds it and since when.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CAIRN_BIN, TEST_ENV, cairn, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { noise } from '../helpers/prune-history';

const MiB = 1 << 20;

function start(cmd: string, args: string[]): { p: ChildProcess; exited: Promise<number> } {
  const p = spawn(cmd, args, { env: { ...process.env, ...TEST_ENV }, stdio: ['pipe', 'ignore', 'ignore'] });
  return { p, exited: new Promise((res) => p.on('exit', (code) => res(code ?? 1))) };
}

async function waitForLock(repo: string, exited: Promise<number>): Promise<void> {
  for (;;) {
    if ((await readdir(join(repo, 'locks')).catch(() => [])).some((f) => !f.includes('-tmp-'))) return;
    if (await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 10))])) throw new Error('exited before it locked');
  }
}

describe('prune and locks', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('prune-locks');
  });
  afterAll(() => removeDir(dir));

  it('restic prune refuses while cairn backs up', async () => {
    const repo = join(dir, 'a'),
      src = join(dir, 'src');
    await mkdir(src);
    for (let i = 0; i < 8; i++) await writeFile(join(src, `f${i}.bin`), noise(i, 8 * MiB));
    await ok(cairn(['-r', repo, 'init']));
    const backup = start(process.execPath, [CAIRN_BIN, '-r', repo, 'backup', '--threads', '1', src]);
    await waitForLock(repo, backup.exited);
    const r = await restic(['-r', repo, 'prune']);
    expect(backup.p.exitCode).toBe(null); // still backing up when restic gave up
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('repository is already locked by PID ' + backup.p.pid);
    expect(await backup.exited).toBe(0);
    await ok(restic(['-r', repo, 'prune']));
  });

  it('cairn prune refuses while restic holds a lock, naming it; --no-lock only with --dry-run', async () => {
    const repo = join(dir, 'b');
    await ok(cairn(['-r', repo, 'init']));
    // restic backup --stdin holds its lock while it waits for input.
    const backup = start('restic', ['-r', repo, 'backup', '--stdin', '--stdin-filename', 'in.txt']);
    await waitForLock(repo, backup.exited);
    const r = await cairn(['-r', repo, 'prune']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^LOCKED: repository is already locked: non-exclusive lock [0-9a-f]{8} held by PID ${backup.p.pid} on ${hostname()} by \\S+ .*created at \\S+ \\(\\d+s ago\\)`,
      ),
    );
    expect((await cairn(['-r', repo, 'prune', '--no-lock'])).stderr).toContain('--no-lock is only applicable in combination with --dry-run');
    expect((await ok(cairn(['-r', repo, 'prune', '--dry-run', '--no-lock']))).stdout).toContain('to repack:');
    backup.p.stdin!.end('some input\n');
    expect(await backup.exited).toBe(0);
    await ok(cairn(['-r', repo, 'prune']));
  });
});
