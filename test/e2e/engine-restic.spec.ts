// restic interop from the browser: what the engine writes (into radosgw, and into OPFS copied
// out to disk) passes `restic check --read-data` and restores byte-identical with restic 0.14;
// what restic backs up, the engine restores byte-identical.

import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { digestDir, digests, materialize, sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { expect, test } from './harness/s3';
import { openHarness, restic } from './harness/open';

const PASSWORD = 'restic interop';

test('restic checks and restores what the browser backed up into S3', async ({ page, s3 }) => {
  await openHarness(page);
  const tree = sampleTree(5);
  await writeOpfsTree(page, ['src', 'Docs'], tree);
  const r = await page.evaluate(
    async ({ loc, pw }) => {
      const h = window.harness;
      await h.engine.createRepository(loc, pw);
      return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Docs']) }, tags: ['browser'] });
    },
    { loc: s3.location, pw: PASSWORD },
  );
  expect(r.filesRead).toBe(tree.length);

  const env = s3.resticEnv(PASSWORD);
  expect(restic(['-r', s3.repository, 'check', '--read-data'], env)).toContain('no errors were found');
  const snaps = JSON.parse(restic(['-r', s3.repository, 'snapshots', '--json'], env));
  expect(snaps.map((s: { id: string; paths: string[]; tags: string[] }) => [s.id, s.paths, s.tags])).toEqual([[r.snapshotId, ['/Docs'], ['browser']]]);
  const target = mkdtempSync(join(tmpdir(), 'cairn-e2e-restic-'));
  try {
    restic(['-r', s3.repository, 'restore', 'latest', '--target', target], env);
    expect(await digestDir(join(target, 'Docs'))).toEqual(digests(tree));
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
});

test('the browser restores what restic backed up into S3', async ({ page, s3 }) => {
  const tree = sampleTree(6);
  const src = mkdtempSync(join(tmpdir(), 'cairn-e2e-src-'));
  try {
    await materialize(tree, join(src, 'Photos'));
    const env = s3.resticEnv(PASSWORD);
    restic(['-r', s3.repository, 'init'], env);
    restic(['-r', s3.repository, 'backup', join(src, 'Photos')], env);

    await openHarness(page);
    const got = await page.evaluate(
      async ({ loc, pw, comps }) => {
        const h = window.harness;
        await h.engine.openRepository(loc, pw);
        const [snap] = await h.engine.listSnapshots();
        const r = await h.engine.restoreToFolder(snap!.id, comps, await h.opfsDir(['from-restic']));
        return { r, files: await h.digestOpfs(['from-restic', comps[comps.length - 1]!]) };
      },
      { loc: s3.location, pw: PASSWORD, comps: join(src, 'Photos').split('/').filter(Boolean) },
    );
    expect(got.r.errors).toEqual([]);
    expect(got.files).toEqual(digests(tree));
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
});

test('an OPFS repository copied out of the browser passes restic check --read-data', async ({ page }) => {
  await openHarness(page);
  const tree = sampleTree(7);
  await writeOpfsTree(page, ['src', 'Music'], tree);
  const files = await page.evaluate(async (pw) => {
    const h = window.harness;
    await h.removeOpfs('cairn-repos');
    await h.engine.createRepository({ kind: 'opfs', name: 'export-me' }, pw);
    await h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Music']) } });
    await h.engine.closeRepository();
    return h.exportOpfs(['cairn-repos', 'export-me']);
  }, PASSWORD);
  const repo = mkdtempSync(join(tmpdir(), 'cairn-e2e-opfs-repo-'));
  const target = mkdtempSync(join(tmpdir(), 'cairn-e2e-opfs-restore-'));
  try {
    for (const [path, b64] of Object.entries(files)) {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), Buffer.from(b64, 'base64'));
    }
    for (const d of ['keys', 'locks', 'snapshots', 'index']) await mkdir(join(repo, d), { recursive: true });
    const env = { ...process.env, RESTIC_PASSWORD: PASSWORD } as Record<string, string>;
    expect(restic(['-r', repo, 'check', '--read-data'], env)).toContain('no errors were found');
    restic(['-r', repo, 'restore', 'latest', '--target', target], env);
    expect(await digestDir(join(target, 'Music'))).toEqual(digests(tree));
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(target, { recursive: true, force: true });
  }
});
