// cairn copy between repositories with different master keys and chunker polynomials: the
// target is one restic made, restic checks it and restores the copies byte for byte, and a
// second copy adds nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, diffTrees, jsonMessage, ok, removeDir, restic, tempDir, TEST_ENV } from '../helpers/cli';
import { resticInit } from '../helpers/restic-repo';
import { seededBytes } from '../helpers/backups';

const listing = async (repo: string) => {
  const out: string[] = [];
  for (const t of ['index', 'snapshots', 'keys']) out.push(...(await readdir(join(repo, t))).map((n) => `${t}/${n}`));
  for (const d of await readdir(join(repo, 'data'))) out.push(...(await readdir(join(repo, 'data', d))).map((n) => `data/${n}`));
  return out.sort();
};

describe('cairn copy', () => {
  let dir: string, src: string, from: string, pwFile: string;
  let fromCairn: string, fromRestic: string;

  beforeAll(async () => {
    dir = await tempDir('copy');
    src = join(dir, 'src');
    from = join(dir, 'from');
    pwFile = join(dir, 'from-pw');
    await writeFile(pwFile, 'source password\n');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'text.txt'), 'some text\n'.repeat(3000));
    await writeFile(join(src, 'sub', 'random.bin'), seededBytes('copy-1', 300_000));
    const env = { RESTIC_PASSWORD: 'source password' };
    await ok(cairn(['-r', from, 'init'], { env }));
    fromCairn = jsonMessage((await ok(cairn(['-r', from, 'backup', '--json', '--host', 'h1', src], { env }))).stdout, 'summary').snapshot_id as string;
    await writeFile(join(src, 'sub', 'more.bin'), seededBytes('copy-2', 200_000));
    await ok(restic(['-r', from, 'backup', '-q', '--host', 'h2', src], { env }));
    // restic 0.14's backup --json gives a short ID; the full one from the listing.
    const list = JSON.parse((await ok(cairn(['-r', from, 'snapshots', '--json', '--host', 'h2'], { env }))).stdout) as { id: string }[];
    fromRestic = list[0]!.id;
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('copies into a restic-made repository: restic checks it clean and restores it byte for byte; a second copy adds nothing', async () => {
    const to = join(dir, 'to');
    await resticInit(to);
    const r = await ok(cairn(['-r', to, 'copy', '--from-repo', from, '--from-password-file', pwFile]));
    expect(r.stdout).toContain(`copied from source snapshot ${fromCairn.slice(0, 8)}`);
    expect(r.stdout).toContain(`copied from source snapshot ${fromRestic.slice(0, 8)}`);
    expect((await restic(['-r', to, 'check', '--read-data'])).code).toBe(0);
    const snaps = JSON.parse((await ok(restic(['-r', to, 'snapshots', '--json']))).stdout) as { id: string; original: string; hostname: string }[];
    expect(snaps.map((s) => s.original).sort()).toEqual([fromCairn, fromRestic].sort());
    const copyOfLatest = snaps.find((s) => s.original === fromRestic)!.id;
    const target = join(dir, 'restored');
    await ok(restic(['-r', to, '--no-cache', 'restore', copyOfLatest, '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);

    const before = await listing(to);
    const again = await ok(cairn(['-r', to, '-v', 'copy', '--from-repo', from, '--from-password-file', pwFile]));
    expect(again.stdout).not.toContain('copy started');
    expect(again.stdout).toContain(`skipping source snapshot ${fromRestic.slice(0, 8)}, was already copied to snapshot ${copyOfLatest.slice(0, 8)}`);
    expect(await listing(to)).toEqual(before);
  });

  it('takes the source from RESTIC_FROM_* variables, filters by --host, and copies snapshots named by ID', async () => {
    const to = join(dir, 'to-env');
    await ok(cairn(['-r', to, 'init']));
    const env = { RESTIC_FROM_REPOSITORY: from, RESTIC_FROM_PASSWORD: 'source password' };
    await ok(cairn(['-r', to, 'copy', '--host', 'h2'], { env }));
    let snaps = JSON.parse((await ok(cairn(['-r', to, 'snapshots', '--json']))).stdout) as { original: string }[];
    expect(snaps.map((s) => s.original)).toEqual([fromRestic]);
    await ok(cairn(['-r', to, 'copy', '--from-repo', from, '--from-password-command', 'echo source password', fromCairn.slice(0, 10)]));
    snaps = JSON.parse((await ok(cairn(['-r', to, 'snapshots', '--json']))).stdout) as { original: string }[];
    expect(snaps.map((s) => s.original).sort()).toEqual([fromCairn, fromRestic].sort());
    expect((await restic(['-r', to, 'check', '--read-data'])).code).toBe(0);
  });

  it('refuses without a source, with two sources, or with a wrong source password', async () => {
    const to = join(dir, 'to-env');
    const none = await cairn(['-r', to, 'copy']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^USAGE: Please specify a source repository location/);
    const both = await cairn(['-r', to, 'copy', '--from-repo', from, '--from-repository-file', pwFile]);
    expect(both.stderr).toMatch(/^USAGE: Options --from-repo and --from-repository-file are mutually exclusive/);
    const wrong = await cairn(['-r', to, 'copy', '--from-repo', from], { env: { RESTIC_FROM_PASSWORD: TEST_ENV.RESTIC_PASSWORD } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^WRONG_PASSWORD/);
  });
});
