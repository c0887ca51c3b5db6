// A plan into a bucket on a real S3 server (radosgw), judged by the real restic: the host name
// set in the settings is the snapshot's host in `restic snapshots`; and when the bucket refuses
// writes (a bucket policy denying PutObject under the test's prefix), the plan's run fails, and
// the failure shows in the history, on the overview, and in a notification.

import { ok, restic } from '../helpers/cli';
import { adminRequest } from '../helpers/s3-server';
import { createPlan, expectUnlocked, fillPasswords, gotoTab, openApp, PASSWORD } from './helpers/app';
import { sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';
import { expect, fillBucket, test, type S3Repo } from './helpers/s3';

const SRC = ['e2e-src', 'Documents'];

/** Denies (or, with `undefined`, allows again) every PUT under the test's prefix. */
async function refuseWrites(r: S3Repo, refuse: boolean): Promise<void> {
  const s = r.server;
  const res = refuse
    ? await adminRequest(
        s,
        'PUT',
        `/${s.bucket}`,
        { policy: '' },
        JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: `arn:aws:s3:::${s.bucket}/${r.prefix}/*` }],
        }),
      )
    : await adminRequest(s, 'DELETE', `/${s.bucket}`, { policy: '' });
  if (!res.ok) throw new Error(`bucket policy: HTTP ${res.status} ${await res.text()}`);
}

test('the host name from the settings is the snapshot’s host for restic; a bucket refusing writes fails the plan, shown in history, overview and a notification', async ({
  page,
  context,
  s3repo,
}) => {
  await context.grantPermissions(['notifications']);
  await page.clock.install({ time: new Date('2025-06-02T08:00:00Z') });
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(33));

  // Settings: notifications on, and this browser's host name.
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByLabel('Host name of this browser')).toHaveValue('chromium-linux');
  await page.getByLabel('Host name of this browser').fill('e2e-laptop');
  await expect(page.getByText('What changing it means')).toBeVisible();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'New snapshots will carry “e2e-laptop”' })).toBeVisible();
  await page.getByLabel(/Tell me when a plan’s backup finishes/).check();
  await expect(page.getByLabel(/Tell me when a plan’s backup finishes/)).toBeChecked();

  await page.goto('/');
  await fillBucket(page, s3repo, { rememberKeys: true });
  await fillPasswords(page, PASSWORD, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await createPlan(page, 'Bucket docs', SRC, { hours: 1 });
  const plan = page.getByTestId('plan-list').locator('li[data-plan="Bucket docs"]');

  await page.getByRole('button', { name: 'Run “Bucket docs” now' }).click();
  await expect(plan.getByTestId('plan-last')).toContainText('finished', { timeout: 60_000 });
  const env = s3repo.resticEnv(PASSWORD);
  const listed = JSON.parse((await ok(restic(['-r', s3repo.repository, '--no-cache', 'snapshots', '--json'], { env }))).stdout) as {
    hostname: string;
    paths: string[];
  }[];
  expect(listed.map((s) => [s.hostname, s.paths])).toEqual([['e2e-laptop', ['/Documents']]]);
  const notifications = () =>
    page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body })));
  expect(await notifications()).toEqual([{ title: 'Backup finished: Bucket docs', body: expect.stringContaining(`${sampleTree(33).length} files`) }]);

  // The bucket stops taking writes; the plan's next run (on schedule) fails.
  await refuseWrites(s3repo, true);
  try {
    await page.clock.fastForward('01:00:30');
    await expect(plan.getByTestId('plan-last')).toContainText('failed', { timeout: 60_000 });
  } finally {
    await refuseWrites(s3repo, false);
  }

  await gotoTab(page, 'History');
  const failed = page.getByTestId('history-list').locator('tbody tr').first();
  await expect(failed).toHaveAttribute('data-result', 'failure');
  await expect(failed).toContainText('on schedule');
  const reason = (await failed.getByTestId('history-error').textContent())!;
  expect(reason.length).toBeGreaterThan(5);

  await gotoTab(page, 'Overview');
  await expect(page.getByTestId('dashboard-warnings')).toContainText('The last run of “Bucket docs” failed');

  // The plan's notification now tells of the failure, with the reason.
  const shown = await notifications();
  test.info().annotations.push({ type: 'failure', description: JSON.stringify({ reason, shown }) });
  expect(shown).toEqual([{ title: 'Backup failed: Bucket docs', body: expect.stringContaining(reason.split(':')[0]!) }]);
});
