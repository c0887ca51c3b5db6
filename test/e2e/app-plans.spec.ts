// Plans run by themselves while the app is open, with the page's clock moved by the test
// (page.clock): a plan due while open runs, a run missed while the app was closed is offered
// on reopening (or run at once, as a setting), and the history survives a reload. In a browser
// that cannot keep access to a folder, a due plan asks for its folder and then runs.

import { expect, test, type Page } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpfsRepo, createPlan, gotoTab, openApp, unlock } from './helpers/app';
import { materialize, sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';

const SRC = ['e2e-src', 'Documents'];

test('a plan due while the app is open runs by itself; the run shows on the plan, the overview and in the history, also after a reload', async ({ page }) => {
  await page.clock.install({ time: new Date('2025-06-02T08:00:00Z') });
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(31));
  await createOpfsRepo(page);
  await createPlan(page, 'Docs', SRC, { hours: 2 });
  const plan = page.getByTestId('plan-list').locator('li[data-plan="Docs"]');
  await expect(plan.getByTestId('plan-last')).toHaveText('never');
  await expect(plan.getByTestId('plan-next')).toContainText('in 2 h');

  // Nothing runs before its time…
  await page.clock.fastForward('01:50:00');
  await expect(plan.getByTestId('plan-next')).toContainText('in 10 min');
  await expect(plan.getByTestId('plan-last')).toHaveText('never');
  // …and at its time it runs, without a click.
  await page.clock.fastForward('00:10:30');
  await expect(plan.getByTestId('plan-last')).toContainText('finished', { timeout: 60_000 });
  await expect(plan.getByTestId('plan-next')).toContainText('in 2 h');

  await gotoTab(page, 'Overview');
  const row = page.getByTestId('dashboard-plans').locator('tr[data-plan="Docs"]');
  await expect(row.getByTestId('dash-last-success')).toContainText('2025-06-02 ');
  await expect(page.getByTestId('dash-snapshots')).toHaveText('1');
  await expect(page.getByTestId('dash-health')).toHaveAttribute('data-status', 'unknown');
  await expect(page.getByTestId('dash-health')).toContainText('Not checked yet');

  await page.reload();
  await unlock(page);
  await gotoTab(page, 'History');
  const entry = page.getByTestId('history-list').locator('tbody tr').first();
  await expect(entry).toContainText('backup · Docs');
  await expect(entry).toContainText('on schedule');
  await expect(entry).toHaveAttribute('data-result', 'success');
  await expect(entry).toContainText(String(sampleTree(31).length)); // files
});

test('a run missed while the app was closed is offered on reopening; with the setting, it runs at once', async ({ page }) => {
  await page.clock.install({ time: new Date('2025-06-02T08:00:00Z') });
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(32));
  await createOpfsRepo(page, { stayUnlocked: true });
  await createPlan(page, 'Nightly', SRC, { dailyAt: '23:00' });

  // Closed over the evening the plan was due.
  await page.goto('about:blank');
  await page.clock.fastForward('24:00:00');
  await page.goto('/#/dashboard');
  const missed = page.getByTestId('missed-run');
  await expect(missed).toContainText('“Nightly” was due');
  await expect(page.getByTestId('dashboard-plans').locator('tr[data-plan="Nightly"]').getByTestId('dash-next')).toHaveText('due now');
  await missed.getByRole('button', { name: 'Run “Nightly” now' }).click();
  await expect(missed).toHaveCount(0);
  await expect(page.getByTestId('dashboard-plans').locator('tr[data-plan="Nightly"]').getByTestId('dash-last-success')).toContainText('2025-06-03 ', {
    timeout: 60_000,
  });

  // "Run them as soon as Cairn opens": the next missed run goes without asking.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Run them as soon as Cairn opens').check();
  await page.goto('about:blank');
  await page.clock.fastForward('24:00:00');
  await page.goto('/#/history');
  await expect(page.getByTestId('history-list').locator('tbody tr[data-kind="backup"]')).toHaveCount(2, { timeout: 60_000 });
  await expect(page.getByTestId('missed-run')).toHaveCount(0);
  const rows = page.getByTestId('history-list').locator('tbody tr');
  await expect(rows.nth(0)).toContainText('missed run');
  await expect(rows.nth(1)).toContainText('missed run');
});

test('without File System Access a due plan asks for its folder, then backs it up as the plan says', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-plan-pick-'));
  try {
    const tree = sampleTree(36);
    await materialize(tree, join(dir, 'Documents'));
    await page.addInitScript(() => {
      delete (window as { showDirectoryPicker?: unknown }).showDirectoryPicker;
    });
    await page.clock.install({ time: new Date('2025-06-02T08:00:00Z') });
    await openApp(page);
    await createOpfsRepo(page);
    await gotoTab(page, 'Plans');
    await page.getByRole('link', { name: 'New plan' }).click();
    await page.getByLabel('Folder name').fill('Documents');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByLabel(/^Tags/).fill('picked');
    await page.getByLabel('Every few hours').check();
    await page.getByLabel('Every', { exact: true }).fill('4');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await expect(page.getByTestId('plan-list').locator('li[data-plan="Documents"]')).toBeVisible();

    await page.clock.fastForward('04:00:30');
    const ask = page.getByTestId('plan-needs-folder');
    await expect(ask).toContainText('choose “Documents”');
    await ask.getByLabel('Choose “Documents” and back up').setInputFiles(join(dir, 'Documents'));
    await expect(ask).toHaveCount(0);
    await expect(page.getByTestId('plan-list').locator('li[data-plan="Documents"]').getByTestId('plan-last')).toContainText('finished', { timeout: 60_000 });

    await gotoTab(page, 'History');
    const entry = page.getByTestId('history-list').locator('tbody tr').first();
    await expect(entry).toContainText('backup · Documents');
    await expect(entry).toContainText('on schedule');
    await expect(entry.locator('td[data-label="Files"]')).toHaveText(String(tree.length));
    await gotoTab(page, 'Snapshots');
    await expect(page.getByTestId('snapshot-list').locator('tbody tr').first()).toContainText('picked');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the service worker, woken by Periodic Background Sync, mentions a plan overdue by more than the set time', async ({ page, context }) => {
  await context.grantPermissions(['notifications']);
  // The page lives three days ago; the service worker, woken below, in the real present.
  await page.clock.install({ time: new Date(Date.now() - 3 * 86_400_000) });
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(37));
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel(/Tell me when a plan’s backup finishes/).check();
  await page.getByLabel(/A plan is overdue when/).fill('2');
  await page.getByLabel(/A plan is overdue when/).blur();
  await page.goto('/');
  await createOpfsRepo(page);
  await createPlan(page, 'Docs', SRC, { hours: 1 });
  await page.evaluate(() => navigator.serviceWorker.ready);

  const cdp = await context.newCDPSession(page);
  const registration = new Promise<string>((resolve) =>
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
      const r = e.registrations.find((x) => !x.isDeleted);
      if (r) resolve(r.registrationId);
    }),
  );
  await cdp.send('ServiceWorker.enable');
  const origin = new URL(page.url()).origin;
  const wake = async () => cdp.send('ServiceWorker.dispatchPeriodicSyncEvent', { origin, registrationId: await registration, tag: 'cairn-overdue-plans' });
  const notifications = () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => `${n.title}: ${n.body}`));
  // Premise: the page has saved the plan's reminder where the service worker reads it.
  await expect.poll(() => readPref(page, 'reminders').then((r) => (Array.isArray(r) ? r.length : 0))).toBe(1);
  // Each wake-up, once handled, counts itself; the assertions below wait for that count, not a clock.
  await wake();
  await expect.poll(() => readPref(page, 'reminderCheck').then((c) => (c as { count?: number } | undefined)?.count)).toBe(1);
  expect(await notifications()).toEqual([expect.stringMatching(/^Backup overdue: Docs: “Docs” \(This browser\) was due \d+ hours ago\. Open Cairn to run it/)]);
  // Mentioned once: another wake-up says nothing new.
  await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).forEach((n) => n.close()));
  await wake();
  await expect.poll(() => readPref(page, 'reminderCheck').then((c) => (c as { count?: number } | undefined)?.count)).toBe(2);
  expect(await notifications()).toEqual([]);
});

/** One value of the page's prefs store ("cairn-ui" database), read in the page. */
function readPref(page: Page, key: string): Promise<unknown> {
  return page.evaluate(
    (k) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('cairn-ui');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const get = db.transaction('prefs').objectStore('prefs').get(k);
          get.onsuccess = () => (db.close(), resolve(get.result));
          get.onerror = () => (db.close(), reject(get.error));
        };
      }),
    key,
  );
}
