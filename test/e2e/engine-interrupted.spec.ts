// A backup into an OPFS repository cut short inside the browser: the engine worker terminated
// mid-backup (with the saver workers it started, as the app's createEngine().terminate() does),
// and the origin's storage quota running out mid-backup. Either way the repository stays what
// restic check --read-data accepts, and the next backup completes, taking up the packs already
// stored (pack journal, workers/engine/pack-journal.ts) instead of storing them again.

import { mkdir, writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openHarness, restic } from './harness/open';
import { bytesOf, digestDir, digests, type FileSpec } from './helpers/data';

const PASSWORD = 'engine e2e password';
const MiB = 1 << 20;
const FILES = 24;
const tree: FileSpec[] = Array.from({ length: FILES }, (_, i) => ({ path: `f${String(i).padStart(2, '0')}.bin`, size: MiB, seed: 1000 + i }));

/** The repository's packs in OPFS: name → size (temp files of unfinished writes apart). */
const packs = (page: Page, repo: string) =>
  page.evaluate(async (repo) => {
    const out: Record<string, number> = {};
    const data = await window.harness.opfsDir(['cairn-repos', repo, 'data'], false);
    for await (const sub of (data as unknown as { values(): AsyncIterable<FileSystemHandle> }).values()) {
      if (sub.kind !== 'directory') continue;
      for await (const f of (sub as unknown as { values(): AsyncIterable<FileSystemFileHandle> }).values()) {
        if (!f.name.includes('-tmp-')) out[f.name] = (await f.getFile()).size;
      }
    }
    return out;
  }, repo);

const total = (p: Record<string, number>) => Object.values(p).reduce((a, b) => a + b, 0);

/**
 * Copies the OPFS repository out and runs restic check --read-data and a restore on it. Cut
 * short (`cut`), packs no index lists are fine, and with `locked` the cut-short engine's lock
 * is still there (removed when an engine next opens the repository): restic checks without
 * locking, as one would next to a running backup. After a completed backup, every pack must be
 * indexed and no lock left.
 */
async function resticAccepts(page: Page, repoName: string, state: 'complete' | 'cut' | 'cut-locked'): Promise<void> {
  const locked = state === 'cut-locked';
  const files = await page.evaluate((name) => window.harness.exportOpfs(['cairn-repos', name]), repoName);
  const repo = mkdtempSync(join(tmpdir(), 'cairn-e2e-cut-repo-'));
  const target = mkdtempSync(join(tmpdir(), 'cairn-e2e-cut-restore-'));
  try {
    for (const [path, b64] of Object.entries(files)) {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), Buffer.from(b64, 'base64'));
    }
    for (const d of ['keys', 'locks', 'snapshots', 'index']) await mkdir(join(repo, d), { recursive: true });
    const env = { ...process.env, RESTIC_PASSWORD: PASSWORD } as Record<string, string>;
    const check = restic([...(locked ? ['--no-lock'] : []), '-r', repo, 'check', '--read-data'], env);
    if (!locked) expect(restic(['-r', repo, 'list', 'locks'], env)).toBe('');
    expect(check).toContain('no errors were found');
    // Once a backup completed, every pack is indexed: none stored twice or left over.
    if (state === 'complete') expect(check).not.toContain('not referenced in any index');
    if (!restic(['-r', repo, 'snapshots', '--json'], env).startsWith('[]')) {
      restic(['-r', repo, 'restore', 'latest', '--target', target], env);
      expect(await digestDir(join(target, 'Big'))).toEqual(digests(tree));
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(target, { recursive: true, force: true });
  }
}

// One at a time: a quota override holds for the origin in the whole browser.
test.describe.configure({ mode: 'serial' });

async function prepare(page: Page, repo: string): Promise<void> {
  await openHarness(page);
  await page.evaluate(
    async ({ files, repo, pw }) => {
      const h = window.harness;
      await h.removeOpfs('cairn-repos');
      await h.removeOpfs('src');
      await h.writeSeeded(['src', 'Big'], files);
      await h.engine.createRepository({ kind: 'opfs', name: repo }, pw);
    },
    { files: tree.map((f) => ({ path: f.path, size: f.size!, seed: f.seed! })), repo, pw: PASSWORD },
  );
  expect(bytesOf(tree[0]!).length).toBe(MiB);
}

/** Opens the repository in the (possibly new) engine and backs Big up with 1 MiB packs; resolves to the summary or the error's code. */
const backUp = (page: Page, repo: string, open: boolean) =>
  page.evaluate(
    async ({ repo, pw, open }) => {
      const h = window.harness;
      if (open) await h.engine.openRepository({ kind: 'opfs', name: repo }, pw);
      await h.engine.tune({ packSize: 1 << 20 });
      return h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Big']) } }).then(
        (r) => ({ filesNew: r.summary.filesNew, dataAdded: r.summary.dataAdded, code: undefined as string | undefined }),
        (e: { code: string; message: string }) => ({ filesNew: 0, dataAdded: 0, code: `${e.code}: ${e.message}` }),
      );
    },
    { repo, pw: PASSWORD, open },
  );

test('the engine worker terminated mid-backup: the next engine takes up what it stored, completes, and restic check is clean', async ({ page }) => {
  await prepare(page, 'cut-engine');
  // Watched from the page itself, so the engine goes the moment the second pack is stored; one
  // saver worker, so that moment comes long before the last pack.
  const seen = await page.evaluate(async () => {
    const h = window.harness;
    await h.engine.tune({ packSize: 1 << 20, workers: 1, uploadsPerWorker: 1 });
    void h.engine.backup({ source: { kind: 'handle', handle: await h.opfsDir(['src', 'Big']) } }).catch(() => {}); // never settles: its engine goes
    const stored = async () => {
      let n = 0;
      const data = await h.opfsDir(['cairn-repos', 'cut-engine', 'data'], false);
      for await (const sub of (data as unknown as { values(): AsyncIterable<FileSystemDirectoryHandle> }).values()) {
        for await (const f of (sub as unknown as { keys(): AsyncIterable<string> }).keys()) if (!f.includes('-tmp-')) n++;
      }
      return n;
    };
    let n: number;
    while ((n = await stored()) < 2) await new Promise((r) => setTimeout(r, 2)); // the test timeout guards a hang
    h.restartEngine();
    return n;
  });
  expect(seen).toBeGreaterThanOrEqual(2);
  const before = await packs(page, 'cut-engine');
  expect(Object.keys(before).length).toBeLessThan(FILES); // cut short indeed
  await resticAccepts(page, 'cut-engine', 'cut-locked'); // no snapshot yet, and nothing restic objects to

  const r = await backUp(page, 'cut-engine', true);
  expect(r.code).toBeUndefined();
  expect(r.filesNew).toBe(FILES);
  const after = await packs(page, 'cut-engine');
  for (const name of Object.keys(before)) expect(Object.keys(after)).toContain(name);
  // Every file's bytes once: what the cut backup stored was not stored again.
  expect(total(after)).toBeLessThan(FILES * MiB + 256 * 1024);
  await resticAccepts(page, 'cut-engine', 'complete');
});

test('the storage quota running out mid-backup: QUOTA_EXCEEDED, the repository consistent, its packs reused once there is room', async ({ page }) => {
  await prepare(page, 'cut-quota');
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
  // Room for about a fifth of the data.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: usage + 5 * MiB });
  const cut = await backUp(page, 'cut-quota', false);
  expect(cut.code).toMatch(/^QUOTA_EXCEEDED: /);
  const before = await packs(page, 'cut-quota');
  expect(Object.keys(before).length).toBeGreaterThan(0);
  expect(total(before)).toBeLessThan(6 * MiB);
  await resticAccepts(page, 'cut-quota', 'cut');

  await cdp.send('Storage.overrideQuotaForOrigin', { origin }); // back to the real quota
  const r = await backUp(page, 'cut-quota', false);
  expect(r.code).toBeUndefined();
  expect(r.filesNew).toBe(FILES);
  const after = await packs(page, 'cut-quota');
  for (const name of Object.keys(before)) expect(Object.keys(after)).toContain(name);
  // Every file's bytes once, and no pack half-written under its name (Chromium's sync access
  // handle reports a write in full that the quota cut short: core/backend/fsa.ts checks the size).
  expect(total(after)).toBeLessThan(FILES * MiB + 256 * 1024);
  await resticAccepts(page, 'cut-quota', 'complete');
});
