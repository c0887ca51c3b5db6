// Interop (b) and (d): cairn writes, restic reads. cairn init + backup of the awkward tree;
// restic check --read-data finds no error, restic restore is byte-identical, restic
// snapshots --json shows cairn's host, tags and paths; keys added by either tool open in
// the other; a wrong password is refused clearly.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';

describe('a repository written by cairn', () => {
  let dir: string, src: string, repo: string, snapshotID: string;

  beforeAll(async () => {
    dir = await tempDir('interop-b');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await makeWeirdTree(src);
    await ok(cairn(['-r', repo, 'init']));
    const r = await ok(cairn(['-r', repo, 'backup', '--json', '--host', 'cairn-host', '--tag', 'one,two', '--tag', 'three', src]));
    snapshotID = jsonMessage(r.stdout, 'summary').snapshot_id as string;
  }, 180_000);
  afterAll(() => removeDir(dir));

  it('passes restic check --read-data', async () => {
    const r = await restic(['-r', repo, 'check', '--read-data']);
    expect(r.stderr + r.stdout).toContain('no errors were found');
    expect(r.code).toBe(0);
  });

  it('is listed by restic snapshots with cairn’s host, tags and paths', async () => {
    const list = JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json']))).stdout) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: snapshotID, hostname: 'cairn-host', tags: ['one', 'two', 'three'], paths: [src] });
  });

  it('is restored by restic byte-identical', async () => {
    const target = join(dir, 'restic-restore');
    await ok(restic(['-r', repo, 'restore', snapshotID, '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
  });

  it('lists the same paths in cairn ls and restic ls', async () => {
    const paths = (out: string) =>
      out
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => (JSON.parse(l) as { path: string }).path);
    expect(paths((await ok(cairn(['-r', repo, 'ls', '--json', 'latest']))).stdout)).toEqual(
      paths((await ok(restic(['-r', repo, 'ls', '--json', 'latest']))).stdout),
    );
  });

  it('accepts a key added by cairn in restic, and one added by restic in cairn', async () => {
    const pwFile = join(dir, 'new-pw');
    await writeFile(pwFile, 'second password\n');
    await ok(cairn(['-r', repo, 'key', 'add', '--new-password-file', pwFile]));
    expect((await restic(['-r', repo, 'snapshots', '--json'], { env: { RESTIC_PASSWORD: 'second password' } })).code).toBe(0);

    const pwFile3 = join(dir, 'third-pw');
    await writeFile(pwFile3, 'third password\n');
    await ok(restic(['-r', repo, 'key', 'add', '--new-password-file', pwFile3]));
    const r = await cairn(['-r', repo, 'snapshots', '--json'], { env: { RESTIC_PASSWORD: 'third password' } });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(1);

    const keys = JSON.parse((await ok(cairn(['-r', repo, 'key', 'list', '--json']))).stdout) as { current: boolean }[];
    expect(keys).toHaveLength(3);
    expect(keys.filter((k) => k.current)).toHaveLength(1);
  });

  it('refuses a wrong password with a coded one-line error and exit 1', async () => {
    const r = await cairn(['-r', repo, 'snapshots'], { env: { RESTIC_PASSWORD: 'not the password' } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^WRONG_PASSWORD: wrong password/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('changes a password with key passwd; the old one stops working', async () => {
    const pwFile = join(dir, 'changed-pw');
    await writeFile(pwFile, 'changed\n');
    await ok(cairn(['-r', repo, 'key', 'passwd', '--new-password-file', pwFile], { env: { RESTIC_PASSWORD: 'second password' } }));
    expect((await restic(['-r', repo, 'cat', 'config'], { env: { RESTIC_PASSWORD: 'changed' } })).code).toBe(0);
    expect((await cairn(['-r', repo, 'cat', 'config'], { env: { RESTIC_PASSWORD: 'second password' } })).code).toBe(1);
  });
});
