// The app in a second real engine: Debian's Firefox ESR, driven by puppeteer-core over WebDriver
// BiDi, against the production build (dist/app, served by `vite preview`). Firefox has no File
// System Access, so this is the `<input webkitdirectory>` path for real: a repository in OPFS,
// a backup, a second backup that skips every file, browsing, and a file downloaded through the
// service worker and compared byte for byte.
//
// Part of `npm test` (scripts/test.sh); alone: `npm run test:firefox`. It used to hang at
// "Create repository" or a backup's start (1 run in 2 to 8): Firefox 153 under automation does
// not always finish starting a worker that a worker starts. The page now starts the engine's
// workers (workers/spawn.ts), and 17 runs in 17 went through before it joined `npm test`.
//
// One thing differs from a user's Firefox, because of the automation: WebDriver BiDi cannot put
// a directory into a file input ("Is directory"), so the page's input gets the same Files
// through a DataTransfer, each with the webkitRelativePath Firefox would give it.

import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import type { PreviewServer } from 'vite';
import { bytesOf, sampleTree, sha256 } from '../e2e/helpers/data';
import { ensureAppBuild } from '../helpers/app-build';

const FIREFOX = process.env['FIREFOX_PATH'] ?? '/usr/bin/firefox-esr';
const PORT = Number(process.env['CAIRN_FIREFOX_PORT'] ?? 4175);
const PASSWORD = 'correct horse battery staple';
const ROOT = join(import.meta.dirname, '../..');

let server: PreviewServer;
let browser: Browser;
let page: Page;
let downloads: string;

beforeAll(async () => {
  ensureAppBuild(); // a no-op after scripts/test.sh's build step; rebuilds a stale dist/app
  const { preview } = await import('vite');
  server = await preview({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', preview: { port: PORT, strictPort: true } });
  downloads = mkdtempSync(join(tmpdir(), 'cairn-firefox-dl-'));
  const puppeteer = await import('puppeteer-core');
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    extraPrefsFirefox: {
      'browser.download.dir': downloads,
      'browser.download.folderList': 2,
      'browser.download.useDownloadDir': true,
      'browser.download.always_ask_before_handling_new_types': false,
      'browser.download.start_downloads_in_tmp_dir': false,
    },
  });
  page = await browser.newPage();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (downloads) rmSync(downloads, { recursive: true, force: true });
});

/**
 * Polls `fn(arg)` in the page (a short evaluation each time) until it returns something truthy
 * (and serialisable: no DOM nodes).
 */
async function until<T>(what: string, fn: (arg: string) => T, arg = '', timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await page.evaluate(fn, arg);
    if (v) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the page says: ${await page.evaluate(() => document.body.innerText.slice(0, 1500))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Clicks the first button or link whose text is exactly `text` (whitespace trimmed). */
async function clickText(text: string): Promise<void> {
  const done = await page.evaluate((t) => {
    const el = [...document.querySelectorAll<HTMLElement>('button, a')].find((e) => e.innerText.trim() === t);
    el?.click();
    return !!el;
  }, text);
  if (!done) throw new Error(`nothing to click named ${JSON.stringify(text)}`);
}

const text = (sel: string) => page.evaluate((s) => document.querySelector<HTMLElement>(s)?.innerText.trim() ?? '', sel);

const tree = sampleTree(11);

/** Puts the tree into the backup panel's folder input, as Firefox's folder picker would. */
async function pickTree(): Promise<void> {
  const files = tree.map((f) => ({ path: `Documents/${f.path}`, b64: Buffer.from(bytesOf(f)).toString('base64') }));
  await page.evaluate((list) => {
    const input = document.querySelector<HTMLInputElement>('input[type=file][webkitdirectory]')!;
    const dt = new DataTransfer();
    for (const { path, b64 } of list) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const f = new File([bytes], path.split('/').pop()!, { lastModified: 1_700_000_000_000 });
      Object.defineProperty(f, 'webkitRelativePath', { value: path });
      dt.items.add(f);
    }
    input.files = dt.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, files);
}

/** Backs the tree up; resolves with the summary of this backup (the snapshot ID changes). */
async function backUp(): Promise<{ new: string; unmodified: string; snapshot: string }> {
  const before = await text('[data-testid="snapshot-id"]');
  await pickTree();
  await until('the picked folder', () => document.querySelector('[data-testid="pending-folder"]')?.textContent?.includes('“Documents”: '));
  await clickText('Back up “Documents”');
  const snapshot = await until(
    'the backup summary',
    (b) => {
      const id = document.querySelector<HTMLElement>('[data-testid="backup-summary"] [data-testid="snapshot-id"]')?.innerText.trim();
      return id && id !== b ? id : '';
    },
    before,
    120_000,
  );
  return { new: await text('[data-testid="files-new"]'), unmodified: await text('[data-testid="files-unmodified"]'), snapshot };
}

test('Firefox: back up through <input webkitdirectory> into OPFS, again (all unchanged), browse, download a file', async () => {
  expect(await browser.version()).toMatch(/firefox/i);
  await page.goto(`http://localhost:${PORT}/`);
  await until('the create form', () => [...document.querySelectorAll('button')].some((b) => b.innerText.trim() === 'Create repository'));
  // No File System Access here: no "a folder on this computer" choice, no folder picker button.
  expect(await page.evaluate(() => 'showDirectoryPicker' in window)).toBe(false);
  await page.type('#unlock-password', PASSWORD);
  await page.type('#unlock-confirm', PASSWORD);
  await clickText('Create repository');
  await until('the unlocked app', () => document.querySelector('nav[aria-label="Main"]') !== null);

  await clickText('Back up');
  const first = await backUp();
  expect(first).toMatchObject({ new: String(tree.length), unmodified: '0' });
  const second = await backUp();
  expect(second).toMatchObject({ new: '0', unmodified: String(tree.length) });
  expect(second.snapshot).not.toBe(first.snapshot);

  await clickText('Snapshots');
  await until('two snapshots', () => document.querySelectorAll('[data-testid="snapshot-list"] tbody tr').length === 2);
  await page.evaluate(() => (document.querySelector('[data-testid="snapshot-list"] a') as HTMLElement).click());
  await until('the snapshot root', () => [...document.querySelectorAll('a')].some((a) => a.innerText.trim() === 'Documents/'));
  await clickText('Documents/');
  await until('the folder listing', () => document.querySelector('[data-testid="tree-list"] tr[data-name="readme.txt"]') !== null);
  const names = await page.evaluate(() => [...document.querySelectorAll('[data-testid="tree-list"] tbody tr')].map((r) => r.getAttribute('data-name')));
  expect(names.sort()).toEqual(['notes', 'photos', 'readme.txt', 'ünïcode name.txt']);

  // A file through the service worker's stream, into Firefox's download folder.
  await until('the service worker', () => navigator.serviceWorker.controller !== null, '', 30_000);
  await clickText('photos/');
  await until('photos/', () => document.querySelector('[data-testid="tree-list"] tr[data-name="big.bin"]') !== null);
  await page.evaluate(() => (document.querySelector('button[aria-label="Download big.bin"]') as HTMLElement).click());
  const want = sha256(bytesOf(tree.find((f) => f.path === 'photos/big.bin')!));
  const target = join(downloads, 'big.bin');
  const end = Date.now() + 60_000;
  let got = '';
  while (Date.now() < end) {
    if (existsSync(target) && !readdirSync(downloads).some((n) => n.endsWith('.part'))) {
      got = createHash('sha256').update(readFileSync(target)).digest('hex');
      if (got === want) break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(got).toBe(want);
}, 300_000);
