// The seams between plans and the repository tools, in a bucket (radosgw), judged by restic 0.14:
// a plan that keeps the last 2 snapshots runs 3 times on its schedule (page clock) and ends with
// 2 — the third run's forget removes the first and prune frees its data — each recorded in the
// history (backup, forget, prune with their numbers); restic finds the repository whole
// (check --read-data) with the plan's 2 snapshots. Then a check run from the Repository page is
// the health the overview shows, and is in the history too.

import { ok, restic } from '../helpers/cli';
import { expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD } from './helpers/app';
import { sampleTree } from './helpers/data';
import { setPick, writeOpfsTree } from './helpers/opfs';
import { expect, fillBucket, test } from './helpers/s3';
import { gotoRepository, removeOpfsFile } from './helpers/tools';

const SRC = ['e2e-src', 'Documents'];

test('a plan keeping the last 2 runs 3 times: 2 snapshots left, forget and prune in the history, restic check clean; a check is the overview’s health', async ({
  page,
  s3repo,
}) => {
  const tree = sampleTree(61);
  const big = tree.find((f) => f.path === 'photos/big.bin')!; // only the first snapshot holds it: prune frees its data
  await page.clock.install({ time: new Date('2025-06-02T08:00:00Z') });
  await openApp(page);
  await writeOpfsTree(page, SRC, tree);
  await fillBucket(page, s3repo, { rememberKeys: true });
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);

  // A plan every hour, keeping the last 2 snapshots.
  await gotoTab(page, 'Plans');
  await page.getByRole('link', { name: 'New plan' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Docs');
  await setPick(page, 'source', SRC);
  await page.getByRole('button', { name: 'Add folder…' }).click();
  await expect(page.getByTestId('plan-folders')).toContainText('Documents');
  await page.getByLabel('Every few hours').check();
  await page.getByLabel('Every', { exact: true }).fill('1');
  await page.getByText('What to keep').click();
  await page.getByLabel('Last', { exact: true }).fill('2');
  await page.getByRole('button', { name: 'Create plan' }).click();
  const plan = page.getByTestId('plan-list').locator('li[data-plan="Docs"]');
  await expect(plan).toContainText('--keep-last 2');

  // Three runs on schedule; the first one's big file is gone before the second.
  await gotoTab(page, 'History');
  const rows = page.getByTestId('history-list').locator('tbody tr');
  for (let run = 1; run <= 3; run++) {
    await page.clock.fastForward('01:00:30');
    await expect(rows.and(page.locator('[data-kind="backup"][data-result="success"]'))).toHaveCount(run, { timeout: 60_000 });
    await expect(rows.and(page.locator('[data-kind="forget"]'))).toHaveCount(run, { timeout: 60_000 });
    if (run === 1) await removeOpfsFile(page, [...SRC, ...big.path.split('/')]);
  }
  const prune = rows.and(page.locator('[data-kind="prune"]'));
  await expect(prune).toHaveCount(1, { timeout: 60_000 });
  await expect(prune).toHaveAttribute('data-result', 'success');
  await expect(prune).toContainText('on schedule');
  const freed = (await prune.getByTestId('history-freed').textContent())!;
  expect(freed).toMatch(/^2\.\d+ MiB freed$/);
  const forgets = rows.and(page.locator('[data-kind="forget"]'));
  await expect(forgets.first()).toHaveAttribute('data-result', 'success');
  await expect(forgets.first().getByTestId('history-removed')).toHaveText('1 snapshot removed');
  await expect(forgets.nth(1).getByTestId('history-removed')).toHaveText('0 snapshots removed');
  await expect(forgets.first()).toContainText('forget · Docs');
  // Newest first: the prune follows the third run's forget, which follows its backup.
  expect(await rows.evaluateAll((trs) => trs.slice(0, 3).map((tr) => tr.getAttribute('data-kind')))).toEqual(['prune', 'forget', 'backup']);

  await gotoTab(page, 'Overview');
  await expect(page.getByTestId('dash-snapshots')).toHaveText('2');
  await expect(page.getByTestId('dash-health')).toHaveAttribute('data-status', 'unknown');

  // restic: the plan's 2 newest snapshots, the repository whole and nothing left to prune.
  const env = s3repo.resticEnv(PASSWORD);
  const listed = JSON.parse((await ok(restic(['-r', s3repo.repository, '--no-cache', 'snapshots', '--json'], { env }))).stdout) as { paths: string[] }[];
  expect(listed.map((s) => s.paths)).toEqual([['/Documents'], ['/Documents']]);
  await ok(restic(['-r', s3repo.repository, '--no-cache', 'check', '--read-data'], { env }));
  const dry = (await ok(restic(['-r', s3repo.repository, '--no-cache', 'prune', '--dry-run'], { env }))).stdout;
  expect(dry).toMatch(/this removes:\s+0 blobs \/ 0 B/);

  // A check from the Repository page is the overview's health, as the Health section says it.
  await gotoRepository(page, 'Health');
  await page.getByLabel('How much of the data to read').selectOption({ label: 'All the data (reads the whole repository)' });
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByTestId('health')).toHaveAttribute('data-status', 'healthy', { timeout: 60_000 });
  const words = (await page.getByTestId('health').textContent())!;
  expect(words).toContain('all the data read');
  await gotoTab(page, 'Overview');
  await expect(page.getByTestId('dash-health')).toHaveAttribute('data-status', 'healthy');
  await expect(page.getByTestId('dash-health')).toContainText('Healthy');
  await expect(page.getByTestId('dash-health')).toContainText('all the data read');
  await gotoTab(page, 'History');
  const check = rows.and(page.locator('[data-kind="check"]'));
  await expect(check).toHaveAttribute('data-result', 'success');
  await expect(check).toContainText('--read-data');
});
