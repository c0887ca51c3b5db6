// One operation at a time, one truth about it (web/state/operation.svelte.ts): while a backup,
// a restore, a check or a snapshot removal runs, each other one started by hand is refused with
// a message naming it, a dropped folder too, Lock and leaving the tab ask first, a plan coming
// due waits for its turn and then runs, and a second tab on the same repository sees what runs
// and is refused likewise. Each first operation is held in the slot by the e2e build's gate
// (window.__cairnTestOperationGate) until the test lets it go, so "while it runs" never
// depends on how fast it is.

import { expect, test, type Page } from '@playwright/test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupOpfsFolder, createOpfsRepo, createPlan, dropFolder, expectUnlocked, gotoTab, openApp, unlock } from './helpers/app';
import { sampleTree } from './helpers/data';
import { setPick, writeOpfsTree } from './helpers/opfs';
import { gotoRepository } from './helpers/tools';

const SRC = ['e2e-src', 'Documents'];
const KINDS = ['backup', 'restore', 'check', 'forget'] as const;
type Kind = (typeof KINDS)[number];
const WORDS: Record<Kind, string> = { backup: 'A backup', restore: 'A restore', check: 'A check', forget: 'Removing snapshots' };

interface Gated {
  __cairnTestOperationGate?: (kind: string) => Promise<void>;
  __gates?: Record<string, () => void>;
  __reached?: string[];
}

/** From now on, operations of these kinds wait in the slot until openGate; others run. */
async function closeGates(page: Page, kinds: readonly string[]): Promise<void> {
  await page.evaluate((ks) => {
    const w = window as unknown as Gated;
    const waits: Record<string, Promise<void>> = {};
    w.__gates = {};
    w.__reached = [];
    for (const k of ks) waits[k] = new Promise<void>((r) => (w.__gates![k] = r));
    w.__cairnTestOperationGate = (k) => {
      w.__reached!.push(k);
      return waits[k] ?? Promise.resolve();
    };
  }, kinds);
}

/** Waits until an operation of `kind` holds the slot (at its gate). */
async function reached(page: Page, kind: string): Promise<void> {
  await page.waitForFunction((k) => (window as unknown as Gated).__reached?.includes(k), kind);
}

async function openGate(page: Page, kind: string): Promise<void> {
  await page.evaluate((k) => (window as unknown as Gated).__gates?.[k]?.(), kind);
}

async function openSnapshot(page: Page): Promise<void> {
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .first()
    .click();
  await expect(page.getByRole('button', { name: 'Restore into a folder…' })).toBeVisible();
}

/** Starts an operation of `kind` the way a user does. */
const START: Record<Kind, (page: Page) => Promise<void>> = {
  backup: async (page) => {
    await gotoTab(page, 'Back up');
    await setPick(page, 'source', SRC);
    await page.getByRole('button', { name: 'Choose folder…' }).click();
    await expect(page.getByTestId('pending-folder')).toContainText('Documents');
    await page.getByRole('button', { name: 'Back up “Documents”', exact: true }).click();
  },
  restore: async (page) => {
    await openSnapshot(page);
    await setPick(page, 'restore', ['e2e-restore']);
    await page.getByRole('button', { name: 'Restore into a folder…' }).click();
  },
  check: async (page) => {
    await gotoRepository(page, 'Health');
    await page.getByRole('button', { name: 'Check now' }).click();
  },
  forget: async (page) => {
    await openSnapshot(page);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete this snapshot…' }).click();
  },
};

/** What shows once the operation of `kind` has ended well (on its own view). */
async function expectDone(page: Page, kind: Kind): Promise<void> {
  if (kind === 'backup') await gotoTab(page, 'Back up');
  if (kind === 'check') await gotoRepository(page, 'Health');
  if (kind === 'backup') await expect(page.getByTestId('backup-summary')).toBeVisible({ timeout: 60_000 });
  if (kind === 'restore') await expect(page.getByTestId('restore-result')).toContainText('Restored', { timeout: 60_000 });
  if (kind === 'check') await expect(page.getByText('No errors were found.')).toBeVisible({ timeout: 60_000 });
  if (kind === 'forget') await expect(page.getByText('No snapshots yet.')).toBeVisible({ timeout: 60_000 });
}

/** A repository with one snapshot of SRC, open. */
async function repositoryWithSnapshot(page: Page): Promise<void> {
  await openApp(page);
  await writeOpfsTree(page, SRC, sampleTree(46).slice(0, 3));
  await createOpfsRepo(page);
  await backupOpfsFolder(page, SRC);
}

const busy = (page: Page, what: string, where = '') =>
  page
    .getByRole('alert')
    .filter({ hasText: `${what} is running${where} (since` })
    .first();

/** Clicks Lock and answers its question with "no"; returns the question (undefined when none was asked). */
async function lockSayingNo(page: Page): Promise<string | undefined> {
  let asked: string | undefined;
  page.once('dialog', (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.getByRole('button', { name: 'Lock' }).click();
  return asked;
}

for (const first of KINDS) {
  test(`while ${WORDS[first].toLowerCase()} runs: the others, a dropped folder are refused naming it; Lock and leaving ask`, async ({ page }) => {
    const disk = await mkdtemp(join(tmpdir(), 'cairn-e2e-operation-'));
    try {
      await writeFile(join(disk, 'note.txt'), 'dropped\n');
      await repositoryWithSnapshot(page);
      await closeGates(page, [first]);
      await START[first](page);
      await reached(page, first);

      for (const second of KINDS.filter((k) => k !== first)) {
        await START[second](page);
        await expect(busy(page, WORDS[first])).toBeVisible();
      }
      await dropFolder(page, disk);
      await expect(page.getByTestId('operation-banner').getByRole('alert')).toContainText(`${WORDS[first]} is running (since`);
      await expect(page.getByTestId('operation-banner')).toContainText('Try the dropped folder again when it has ended.');

      // Lock asks, and "no" keeps the repository open and the operation running.
      expect(await lockSayingNo(page)).toBe(`${WORDS[first]} is running. Stop it and lock the repository?`);
      await expectUnlocked(page);

      // Leaving asks too (the browser's own question), and staying keeps it running.
      const leaveAsked = page.waitForEvent('dialog');
      await page.close({ runBeforeUnload: true });
      const leaveDialog = await leaveAsked;
      expect(leaveDialog.type()).toBe('beforeunload');
      await leaveDialog.dismiss();

      await openGate(page, first);
      await expectDone(page, first);
      await expect(page.getByTestId('operation-banner')).toHaveCount(0);
      // Nothing runs: Lock locks without asking.
      await page.getByRole('button', { name: 'Lock' }).click();
      await expect(page.getByRole('button', { name: 'Open repository' })).toBeVisible();
    } finally {
      await rm(disk, { recursive: true, force: true });
    }
  });
}

test('a plan coming due during a check waits for it, then runs; a check asked for during the plan’s backup is refused naming the plan', async ({ page }) => {
  await page.clock.install({ time: new Date('2025-06-02T08:00:00Z') });
  await repositoryWithSnapshot(page);
  await createPlan(page, 'Nightly', SRC, { hours: 2 });
  await closeGates(page, ['check', 'backup']);
  await START.check(page);
  await reached(page, 'check');

  await page.clock.fastForward('02:00:30');
  await expect(page.getByTestId('operation-queued')).toHaveText('“Nightly” is due and will back up when a check has ended.');
  await gotoTab(page, 'Plans');
  const plan = page.getByTestId('plan-list').locator('li[data-plan="Nightly"]');
  await expect(plan).toContainText('waiting for its turn');

  await openGate(page, 'check');
  await reached(page, 'backup');
  await expect(page.getByTestId('operation-queued')).toHaveCount(0);
  await expect(plan).toContainText('running');
  await START.check(page);
  await expect(busy(page, 'A backup of plan “Nightly”')).toBeVisible();
  expect(await lockSayingNo(page)).toBe('A backup of plan “Nightly” is running. Stop it and lock the repository?');

  await openGate(page, 'backup');
  await gotoTab(page, 'Plans');
  await expect(plan.getByTestId('plan-last')).toContainText('finished', { timeout: 60_000 });
});

test('a second tab on the repository sees what the first runs, since when, and is refused until it ends', async ({ page, context }) => {
  await repositoryWithSnapshot(page);
  await closeGates(page, ['check']);
  await START.check(page);
  await reached(page, 'check');

  const other = await context.newPage();
  await openApp(other);
  await unlock(other);
  await expectUnlocked(other);
  await expect(other.getByTestId('operation-elsewhere')).toHaveText(/^A check is running in another tab \(since \d\d?:\d\d[^)]*\)\. Wait for it to end\.$/);
  await START.backup(other);
  await expect(busy(other, 'A check', ' in another tab')).toBeVisible();
  await START.forget(other);
  await expect(busy(other, 'A check', ' in another tab')).toBeVisible();
  // Locking this tab stops nothing of the other's: no question.
  expect(await lockSayingNo(other)).toBeUndefined();
  await expect(other.getByRole('button', { name: 'Open repository' })).toBeVisible();
  await unlock(other);
  await expectUnlocked(other);
  await expect(other.getByTestId('operation-elsewhere')).toBeVisible();

  await openGate(page, 'check');
  await expectDone(page, 'check');
  await expect(other.getByTestId('operation-elsewhere')).toHaveCount(0);
  await START.check(other);
  await expectDone(other, 'check');
});
