// The shell's promises: a strict Content-Security-Policy that nothing in a real session
// violates, no password or key in clear in any browser storage, an installable manifest,
// a layout that fits 360 px without sideways scrolling, and keyboard-only use.

import { expect, test, type Page } from '@playwright/test';
import { backupOpfsFolder, createOpfsRepo, expectUnlocked, gotoTab, openApp, PASSWORD } from './helpers/app';
import { sampleTree } from './helpers/data';
import { writeOpfsTree } from './helpers/opfs';

async function collectCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
}

test('strict CSP (header and meta), no violations during a backup, manifest and icons served', async ({ page, request }) => {
  const res = await request.get('/');
  const csp = res.headers()['content-security-policy']!;
  expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain("'unsafe-eval'");
  expect(csp).toContain("frame-ancestors 'none'");
  const html = await res.text();
  expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'self'/);
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script

  const manifest = await (await request.get('/manifest.webmanifest')).json();
  expect(manifest).toMatchObject({ name: expect.stringContaining('Cairn'), display: 'standalone' });
  for (const icon of manifest.icons as { src: string }[]) expect((await request.get('/' + icon.src)).ok()).toBe(true);

  await collectCspViolations(page);
  await openApp(page);
  await writeOpfsTree(page, ['e2e-src', 'Documents'], sampleTree(6));
  await createOpfsRepo(page);
  await backupOpfsFolder(page, ['e2e-src', 'Documents']);
  expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
});

test('no password, key or file name in clear in IndexedDB or localStorage', async ({ page }) => {
  await openApp(page);
  await writeOpfsTree(page, ['e2e-src', 'Documents'], sampleTree(5));
  await createOpfsRepo(page, { stayUnlocked: true });
  await backupOpfsFolder(page, ['e2e-src', 'Documents']);
  // Open a folder of the snapshot: the engine keeps that listing (sealed) for the next start.
  await gotoTab(page, 'Snapshots');
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .click();
  await page.getByRole('link', { name: 'Documents/' }).click();
  await expect(page.getByTestId('tree-list').locator('tr[data-name="readme.txt"]')).toBeVisible();
  await expect.poll(() => page.evaluate(() => performance.getEntriesByName('cairn:listing-kept').length)).toBeGreaterThan(1);
  const dump = await page.evaluate(async () => {
    const out: string[] = [JSON.stringify({ ...localStorage })];
    const text = (v: unknown): string => {
      if (v instanceof ArrayBuffer) return new TextDecoder('latin1').decode(v);
      if (ArrayBuffer.isView(v)) return new TextDecoder('latin1').decode(v as Uint8Array);
      if (v && typeof v === 'object') return Object.values(v).map(text).join('|');
      return String(v);
    };
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((ok, bad) => {
        const r = indexedDB.open(name!);
        r.onsuccess = () => ok(r.result);
        r.onerror = () => bad(r.error);
      });
      for (const store of db.objectStoreNames) {
        const all = await new Promise<unknown[]>((ok) => {
          const r = db.transaction(store).objectStore(store).getAll();
          r.onsuccess = () => ok(r.result);
        });
        out.push(`${name}/${store}: ` + all.map(text).join('\n'));
      }
      db.close();
    }
    return out.join('\n');
  });
  expect(dump).toContain('cairn-ui/repos'); // the dump did read the app's own database
  expect(dump).toContain('cairn-engine/remembered');
  expect(dump).not.toContain(PASSWORD);
  for (const name of ['readme.txt', 'todo.md', 'small.bin']) expect(dump).not.toContain(name);
});

test('fits a 360 px wide screen and works with the keyboard alone', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openApp(page);
  await writeOpfsTree(page, ['e2e-src', 'Documents'], sampleTree(7));
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  await expect(page.getByRole('heading', { name: 'Create a repository' })).toBeVisible();
  expect(await noSideways()).toBe(true);
  // Keyboard only: focus the password field via Tab, type, Tab on to confirm, submit with Enter.
  for (let i = 0; i < 30 && !(await page.getByLabel('Password', { exact: true }).evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(page.getByLabel('Password', { exact: true })).toBeFocused();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Tab'); // the Show button
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Confirm password')).toBeFocused();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await expectUnlocked(page);

  await backupOpfsFolder(page, ['e2e-src', 'Documents']);
  expect(await noSideways()).toBe(true);
  await gotoTab(page, 'Snapshots');
  await expect(page.getByTestId('snapshot-list')).toBeVisible();
  expect(await noSideways()).toBe(true);
  await page
    .getByTestId('snapshot-list')
    .getByRole('link', { name: /Open snapshot/ })
    .focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('tree-list')).toBeVisible();
  expect(await noSideways()).toBe(true);
  // Focus is visible: the focused link has an outline.
  await page.getByRole('link', { name: 'Documents/' }).focus();
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe('none');
});
