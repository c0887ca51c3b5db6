// Driving the app the way a user does (labels, roles, visible text) — shared by the specs.

import { expect, type Page } from '@playwright/test';
import { installPickHook, setPick } from './opfs';

export const PASSWORD = 'correct horse battery staple';

/** Opens the app with the test picker hook installed and waits for the repository screen. */
export async function openApp(page: Page, hash = ''): Promise<void> {
  await installPickHook(page);
  await page.goto('/' + hash);
  await expect(page.getByRole('status').filter({ hasText: 'Starting…' })).toHaveCount(0);
}

export async function createOpfsRepo(page: Page, opts: { password?: string; stayUnlocked?: boolean } = {}): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Create a repository' })).toBeVisible();
  await fillPasswords(page, opts.password ?? PASSWORD, true);
  if (opts.stayUnlocked) await page.getByLabel('Open without asking for the password on this device').check();
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
}

/** From the repository screen: creates a second repository in this browser, by name, and opens it. */
export async function createNamedOpfsRepo(page: Page, name: string, label: string, password: string): Promise<void> {
  await page.getByRole('button', { name: /Another repository/ }).click();
  await page.getByLabel('Create a new one').check();
  await page.getByText('Name in this browser').click();
  await page.getByLabel('Repository name').fill(name);
  await page.getByLabel('Name to show').fill(label);
  await fillPasswords(page, password, true);
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expectUnlocked(page);
}

export async function fillPasswords(page: Page, password: string, confirm: boolean): Promise<void> {
  await page.getByLabel('Password', { exact: true }).fill(password);
  if (confirm) await page.getByLabel('Confirm password').fill(password);
}

export async function expectUnlocked(page: Page): Promise<void> {
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible({ timeout: 60_000 });
}

/** Unlocks the preselected (remembered) repository with a password. */
export async function unlock(page: Page, password = PASSWORD): Promise<void> {
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Open repository' }).click();
}

export interface BackupCounts {
  filesNew: number;
  filesChanged: number;
  filesUnmodified: number;
  snapshotShortId: string;
}

/** Backs up the OPFS folder `dir` through "Choose folder…", and returns the summary's counts. */
export async function backupOpfsFolder(page: Page, dir: string[], opts: { tags?: string; excludes?: string } = {}): Promise<BackupCounts> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Back up' }).click();
  await setPick(page, 'source', dir);
  await page.getByRole('button', { name: 'Choose folder…' }).click();
  const name = dir.at(-1)!;
  await expect(page.getByTestId('pending-folder')).toContainText(name);
  if (opts.tags) await page.getByLabel(/^Tags/).fill(opts.tags);
  if (opts.excludes) await page.getByLabel(/^Leave out/).fill(opts.excludes);
  await page.getByRole('button', { name: `Back up “${name}”`, exact: true }).click();
  return readSummary(page);
}

/** The finished backup's summary; `after` = the previous run's snapshot, whose summary may still show. */
export async function readSummary(page: Page, after?: string): Promise<BackupCounts> {
  const summary = page.getByTestId('backup-summary');
  const alert = page.getByRole('alert');
  await expect(summary.or(alert).first()).toBeVisible({ timeout: 90_000 });
  if (await alert.count()) throw new Error(`backup failed: ${await alert.first().textContent()}`);
  if (after) await expect(summary.getByTestId('snapshot-id')).not.toHaveText(after, { timeout: 90_000 });
  const n = async (id: string) => Number(await summary.getByTestId(id).textContent());
  return {
    filesNew: await n('files-new'),
    filesChanged: await n('files-changed'),
    filesUnmodified: await n('files-unmodified'),
    snapshotShortId: (await summary.getByTestId('snapshot-id').textContent())!.trim(),
  };
}

export async function gotoTab(page: Page, name: 'Overview' | 'Snapshots' | 'Back up' | 'Plans' | 'History' | 'Search' | 'Compare'): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

/** Performance measures the app recorded (name → duration ms, the newest of each name). */
export async function measures(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => Object.fromEntries(performance.getEntriesByType('measure').map((m) => [m.name, m.duration])));
}

/** From the Plans tab: a new plan of the OPFS folder `dir`, with a schedule of every `hours` hours (or daily at `at`). */
export async function createPlan(page: Page, name: string, dir: string[], schedule: { hours: number } | { dailyAt: string }): Promise<void> {
  await gotoTab(page, 'Plans');
  await page.getByRole('link', { name: 'New plan' }).click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await setPick(page, 'source', dir);
  await page.getByRole('button', { name: 'Add folder…' }).click();
  await expect(page.getByTestId('plan-folders')).toContainText(dir.at(-1)!);
  if ('hours' in schedule) {
    await page.getByLabel('Every few hours').check();
    await page.getByLabel('Every', { exact: true }).fill(String(schedule.hours));
  } else {
    await page.getByLabel('Every day').check();
    await page.getByLabel('At', { exact: true }).fill(schedule.dailyAt);
  }
  await page.getByRole('button', { name: 'Create plan' }).click();
  await expect(page.getByTestId('plan-list').locator(`li[data-plan="${name}"]`)).toBeVisible();
}

/**
 * Drags `path` (a folder on disk) from outside the browser and drops it in the middle of the
 * page: Chromium's own drag and drop, through the DevTools protocol.
 */
export async function dropFolder(page: Page, path: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files: [path], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const) await cdp.send('Input.dispatchDragEvent', { type, x: 400, y: 300, data });
  await cdp.detach();
}
