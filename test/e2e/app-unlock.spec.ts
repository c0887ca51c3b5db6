// Unlocking: a wrong password says so plainly (and loses nothing), a mismatched confirmation
// is caught before anything is written, and several repositories are remembered and switched.

import { expect, test } from '@playwright/test';
import { createNamedOpfsRepo, createOpfsRepo, expectUnlocked, fillPasswords, openApp, PASSWORD, unlock } from './helpers/app';

test('a wrong password is refused with a clear message; the right one then opens', async ({ page }) => {
  await openApp(page);
  await createOpfsRepo(page);
  await page.getByRole('button', { name: 'Lock' }).click();

  await expect(page.getByRole('heading', { name: 'Unlock “This browser”' })).toBeVisible();
  await unlock(page, 'not the password');
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Wrong password');
  await expect(alert).toContainText('does not open this repository');
  await expect(alert).toHaveAttribute('data-code', 'WRONG_PASSWORD');
  await expect(page.getByLabel('Password', { exact: true })).toBeFocused();
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');

  await unlock(page, PASSWORD);
  await expectUnlocked(page);
  await expect(page.getByTestId('repo-label')).toHaveText('This browser');
});

test('create refuses a confirmation that differs, and a too-short password', async ({ page }) => {
  await openApp(page);
  await expect(page.getByRole('heading', { name: 'Create a repository' })).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill('short');
  await page.getByLabel('Confirm password').fill('short');
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expect(page.getByText('Use at least 8 characters')).toBeVisible();
  await fillPasswords(page, PASSWORD, false);
  await page.getByLabel('Confirm password').fill(PASSWORD + 'x');
  await page.getByRole('button', { name: 'Create repository' }).click();
  await expect(page.getByText('The two passwords differ.')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
});

test('two repositories in this browser are remembered and switched between', async ({ page }) => {
  await openApp(page);
  await createOpfsRepo(page);
  await page.getByRole('button', { name: 'Lock' }).click();

  await createNamedOpfsRepo(page, 'second', 'Second one', 'another long password');
  await expect(page.getByTestId('repo-label')).toHaveText('Second one');
  await page.getByRole('button', { name: 'Lock' }).click();

  const list = page.getByRole('region', { name: 'Your repositories' });
  await expect(list.getByRole('button', { name: /^This browser/ })).toBeVisible();
  await expect(list.getByRole('button', { name: /^Second one/ })).toHaveAttribute('aria-pressed', 'true');
  await list.getByRole('button', { name: /^This browser/ }).click();
  await unlock(page, PASSWORD);
  await expectUnlocked(page);
  await expect(page.getByTestId('repo-label')).toHaveText('This browser');
});
