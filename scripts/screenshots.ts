// Documentation screenshots (docs/screenshots/*.png): a repository in this browser's storage,
// two plans that run by themselves over four simulated days (page.clock) on small seeded files
// that change between runs, one run that goes wrong (its folder gone for a while: the run
// fails, and no empty snapshot is saved), and a check from the Repository page — then the
// Overview at 360 px and 1100 px, the History and the Health.
// Run: flock /tmp/cairn-e2e.lock npx playwright test -c scripts/screenshots.config.ts

import { expect, test, type Page } from '@playwright/test';
import { join } from 'node:path';
import { createOpfsRepo, createPlan, gotoTab, openApp } from '../test/e2e/helpers/app';
import type { FileSpec } from '../test/e2e/helpers/data';
import { writeOpfsTree } from '../test/e2e/helpers/opfs';
import { gotoRepository } from '../test/e2e/helpers/tools';

const OUT = join(import.meta.dirname, '..', 'docs', 'screenshots');
const DOCS = ['shots', 'Documents'];
const PHOTOS = ['shots', 'Photos'];

const docsTree = (day: number): FileSpec[] => [
  { path: 'letters/bank.txt', text: 'Dear bank,\n'.repeat(40) },
  { path: `notes/day-${day}.md`, text: `# Day ${day}\n\n` + 'notes '.repeat(200 * day) },
  { path: 'budget.ods', size: 60_000 + 9_000 * day, seed: 100 + day },
];
const photosBatch = (n: number): FileSpec[] => [
  { path: `2026-12/IMG_${1000 + n}.jpg`, size: 180_000 + 37_000 * (n % 5), seed: 500 + n },
  { path: `2026-12/IMG_${2000 + n}.jpg`, size: 90_000, seed: 900 + n },
];

// page.clock moves the page's time only; the workers (which stamp snapshot times) get a Date
// shifted by the same amount: a prelude on every script, active in dedicated workers, whose
// offset starts as served and follows what the page posts on a BroadcastChannel.
let workerOffset = 0;
const prelude = () =>
  `if (typeof WorkerGlobalScope !== 'undefined' && typeof ServiceWorkerGlobalScope === 'undefined' && !globalThis.__shotClock) {` +
  `globalThis.__shotClock = 1; const R = Date; let off = ${workerOffset};` +
  `new BroadcastChannel('shot-clock').onmessage = (e) => { off = e.data; };` +
  `class D extends R { constructor(...a) { if (a.length === 0) super(R.now() + off); else super(...a); } static now() { return R.now() + off; } }` +
  `globalThis.Date = D; }\n`;

async function shiftWorkerClock(page: Page, ms: number): Promise<void> {
  workerOffset += ms;
  await page.evaluate((off) => new BroadcastChannel('shot-clock').postMessage(off), workerOffset);
  await page.waitForTimeout(200);
}

async function removeOpfs(page: Page, dir: string[]): Promise<void> {
  await page.evaluate(async (dir) => {
    let d = await navigator.storage.getDirectory();
    for (const p of dir.slice(0, -1)) d = await d.getDirectoryHandle(p);
    await d.removeEntry(dir.at(-1)!, { recursive: true });
  }, dir);
}

/** Waits until the History lists `n` plan runs (successful or not). */
async function expectRuns(page: Page, n: number): Promise<void> {
  await gotoTab(page, 'History');
  await expect(page.getByTestId('history-list').locator('tbody tr[data-kind="backup"]')).toHaveCount(n, { timeout: 120_000 });
}

test('screenshots of the overview, history and repository health', async ({ page }) => {
  const start = new Date('2026-11-30T19:00:00Z');
  workerOffset = start.getTime() - Date.now();
  await page.route('**/*.js', async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, body: prelude() + (await res.text()) });
  });
  await page.clock.install({ time: start });
  await openApp(page);
  await writeOpfsTree(page, DOCS, docsTree(0));
  await writeOpfsTree(page, PHOTOS, photosBatch(0));
  await createOpfsRepo(page);

  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Host name of this browser').fill('family-laptop');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Saved. New snapshots will carry “family-laptop”.')).toBeVisible();

  await createPlan(page, 'Documents nightly', DOCS, { dailyAt: '00:30' });
  await createPlan(page, 'Photos every 6 hours', PHOTOS, { hours: 6 });

  // Six-hour steps: Photos runs at each (01:00, 07:00, …), Documents at 00:30 each night.
  let runs = 0;
  for (let step = 1; step <= 14; step++) {
    if (step % 3 === 0) await writeOpfsTree(page, PHOTOS, photosBatch(step));
    if (step % 4 === 1) await writeOpfsTree(page, DOCS, docsTree(step));
    const fail = step === 7; // the Photos folder is away for one run
    if (fail) await removeOpfs(page, PHOTOS);
    await shiftWorkerClock(page, 6 * 3600_000);
    await page.clock.fastForward('06:00:00');
    runs += 1 + (step % 4 === 1 ? 1 : 0);
    await expectRuns(page, runs);
    if (fail) await writeOpfsTree(page, PHOTOS, [...photosBatch(0), ...photosBatch(3), ...photosBatch(6)]);
  }
  await expect(page.getByTestId('history-list').locator('tbody tr[data-result="warning"], tbody tr[data-result="failure"]').first()).toBeVisible();

  await shiftWorkerClock(page, 2 * 3600_000);
  await page.clock.fastForward('02:00:00');
  await gotoRepository(page, 'Health');
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByTestId('check-report')).toContainText('No errors were found', { timeout: 120_000 });
  await page.screenshot({ path: join(OUT, 'repository-desktop.png'), fullPage: true });

  await gotoTab(page, 'History');
  await page.screenshot({ path: join(OUT, 'history-desktop.png'), fullPage: true });

  await gotoTab(page, 'Overview');
  await expect(page.getByTestId('dash-health')).not.toHaveAttribute('data-status', 'unknown');
  await page.screenshot({ path: join(OUT, 'overview-desktop.png'), fullPage: true });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, 'overview-360.png'), fullPage: true });
});
