// The page's own database ("cairn-ui") went from version 1 (repositories, folders, settings) to
// version 2 (plus plans and history). What a version-1 app kept is still there after the
// upgrade; a tab of the version-1 app holding the database gets the new tab a plain message.

import { expect, test, type Page } from '@playwright/test';
import { openApp } from './helpers/app';

/** Writes a version-1 "cairn-ui" database as the previous app left it, from a page the app does not run on. */
async function writeVersion1(page: Page): Promise<void> {
  await page.goto('/icons/cairn.svg');
  await page.evaluate(async () => {
    const req = <T>(r: IDBRequest<T>) => new Promise<T>((ok, no) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => no(r.error))));
    const open = indexedDB.open('cairn-ui', 1);
    open.onupgradeneeded = () => {
      const d = open.result;
      d.createObjectStore('repos', { keyPath: 'id' });
      d.createObjectStore('folders', { keyPath: 'id' });
      d.createObjectStore('prefs');
    };
    const d = await req(open);
    const tx = d.transaction(['repos', 'prefs'], 'readwrite');
    tx.objectStore('repos').put({ id: 'old-1', label: 'Kept by version 1', location: { kind: 'opfs', name: 'kept' }, lastUsed: 1 });
    tx.objectStore('prefs').put('old-1', 'lastRepo');
    await new Promise((ok) => (tx.oncomplete = ok));
    d.close();
  });
}

test('a version-1 database is upgraded in place: its repositories stay, plans and history are added', async ({ page }) => {
  await writeVersion1(page);
  await openApp(page);
  await expect(page.getByRole('heading', { name: 'Unlock “Kept by version 1”' })).toBeVisible();
  const after = await page.evaluate(async () => {
    const r = indexedDB.open('cairn-ui');
    const d = await new Promise<IDBDatabase>((ok) => (r.onsuccess = () => ok(r.result)));
    const out = { version: d.version, stores: [...d.objectStoreNames].sort() };
    d.close();
    return out;
  });
  expect(after).toEqual({ version: 2, stores: ['folders', 'history', 'plans', 'prefs', 'repos'] });
});

test('a tab of the version-1 app holding the database gets a plain message, and closing it lets the app open', async ({ page, context }) => {
  await writeVersion1(page);
  const old = await context.newPage();
  await old.goto('/icons/cairn.svg');
  await old.evaluate(
    () =>
      new Promise<void>((ok, no) => {
        const r = indexedDB.open('cairn-ui', 1);
        r.onsuccess = () => ((window as unknown as { held: IDBDatabase }).held = r.result) && ok();
        r.onerror = () => no(r.error);
      }),
  );
  await page.goto('/');
  await expect(page.getByRole('alert').filter({ hasText: 'Cairn is open in another tab' })).toBeVisible();
  await old.close();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Unlock “Kept by version 1”' })).toBeVisible();
});
