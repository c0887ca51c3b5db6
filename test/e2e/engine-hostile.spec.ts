// A snapshot written to plant files outside what the browser restores into (names `..`,
// `../x`, `/abs`, empty, a symlink then a folder of its name), correctly encrypted by the
// engine's own writer in Node, restored by the app's engine in Chromium: into a picked
// folder (OPFS here) the refused names are reported and nothing appears beside the folder;
// the ZIP holds only names that stay inside it; a single-file download of a refused name fails
// with INVALID_NAME.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './harness/s3';
import { openHarness, restic } from './harness/open';
import { initEngine } from '../helpers/engine';
import { writeHostileSnapshot } from '../helpers/hostile-repo';
import { openS3Backend, parseS3Spec } from '../../cli/adapters/s3';
import { Repository } from '../../core/repository/repository';

const PASSWORD = 'hostile names';

function zipNames(bytes: Uint8Array): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-e2e-hostile-zip-'));
  try {
    writeFileSync(join(dir, 'a.zip'), bytes);
    const py = 'import sys,zipfile,json\nprint(json.dumps([i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist()]))';
    return JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, join(dir, 'a.zip')], { encoding: 'utf8' })) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a hostile snapshot in a bucket: restore into a folder, ZIP and file download refuse the names that leave the folder', async ({ page, s3 }) => {
  const env = s3.resticEnv(PASSWORD);
  restic(['-r', s3.repository, 'init'], env);
  await initEngine();
  const repo = await Repository.open(await openS3Backend(parseS3Spec(s3.repository, env)), PASSWORD);
  await repo.loadIndex();
  await writeHostileSnapshot(repo, [
    { name: '..', type: 'dir', children: [{ name: 'up.txt', type: 'file', data: 'up' }] },
    { name: '../beside.txt', type: 'file', data: 'beside' },
    { name: '/abs', type: 'file', data: 'abs' },
    { name: '', type: 'file', data: 'empty' },
    { name: 'lnk', type: 'symlink', target: '/etc' },
    { name: 'lnk', type: 'dir', children: [{ name: 'planted.txt', type: 'file', data: 'p' }] },
    { name: 'good', type: 'dir', children: [{ name: 'good.txt', type: 'file', data: 'good\n' }] },
  ]);

  await openHarness(page);
  const got = await page.evaluate(
    async ({ loc, pw }) => {
      const h = window.harness;
      const root = await navigator.storage.getDirectory();
      const names = async () => {
        const out: string[] = [];
        for await (const k of root.keys()) out.push(k);
        return out.filter((n) => n !== 'hostile-target').sort();
      };
      const before = await names();
      await h.engine.openRepository(loc, pw);
      const [snap] = await h.engine.listSnapshots();
      const r = await h.engine.restoreToFolder(snap!.id, [], await h.opfsDir(['hostile-target']));
      const download = await h.engine.download(snap!.id, ['..'], 'file').then(
        () => 'started',
        (e: { code?: string }) => e.code,
      );
      return { id: snap!.id, errors: r.errors.map((e) => e.code), files: await h.digestOpfs(['hostile-target']), before, after: await names(), download };
    },
    { loc: s3.location, pw: PASSWORD },
  );
  expect(got.after).toEqual(got.before);
  expect(Object.keys(got.files)).toEqual(['good/good.txt']);
  expect(got.errors.filter((c) => c === 'INVALID_NAME')).toHaveLength(5);
  expect(got.download).toBe('INVALID_NAME');

  await page.evaluate(() => window.harness.swReady());
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.evaluate(({ id }) => window.harness.startDownload(id, [], 'zip').then((d) => d.result), { id: got.id }),
  ]);
  const names = zipNames(await readFile((await dl.path())!));
  expect(names.filter((n) => !n.startsWith('CAIRN-ERRORS')).sort()).toEqual(['good/', 'good/good.txt', 'lnk']);
});
