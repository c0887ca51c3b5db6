// Helpers for the repository tools' specs: the Repository page's sections, and reading the
// recovery sheet's QR code back from the page's SVG with an independent decoder (jsQR).

import { expect, type Page } from '@playwright/test';
import jsQR from 'jsqr';
import { ok, restic } from '../../helpers/cli';
import { serverSigner } from '../../helpers/s3-server';
import type { S3Repo } from './s3';

export async function gotoRepository(page: Page, section: 'Health' | 'Keys' | 'Recovery sheet' | 'Retention'): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Repository', exact: true }).click();
  await page.getByRole('navigation', { name: 'Repository' }).getByRole('link', { name: section, exact: true }).click();
}

/** The text the sheet's QR code holds, read from its SVG path (one `M x y h1v1h-1z` per dark module). */
export async function readSheetQr(page: Page): Promise<string> {
  const svg = page.getByTestId('sheet-qr');
  const [viewBox, d] = await Promise.all([svg.getAttribute('viewBox'), svg.locator('path').getAttribute('d')]);
  const side = Number(viewBox!.split(' ')[2]);
  const scale = 4;
  const width = side * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const m of d!.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    const [x, y] = [Number(m[1]), Number(m[2])];
    for (let dy = 0; dy < scale; dy++)
      for (let dx = 0; dx < scale; dx++) {
        const o = ((y * scale + dy) * width + x * scale + dx) * 4;
        data[o] = data[o + 1] = data[o + 2] = 0;
      }
  }
  const found = jsQR(data, width, width);
  expect(found, 'the QR code decodes').toBeTruthy();
  return found!.data;
}

/** Sets the retention rule "Keep the last n snapshots" alone and waits for the preview to count. */
export async function keepLast(page: Page, n: number, keep: number, remove: number): Promise<void> {
  await page.getByLabel('Keep the last').fill(String(n));
  await expect(page.getByTestId('preview-counts')).toHaveText(`Keeps ${keep}, removes ${remove}`);
}

/** Flips one byte in the middle of blob `id` where the bucket's pack holds it; returns that pack's ID. */
export async function damageBlob(r: S3Repo, password: string, id: string): Promise<string> {
  const env = r.resticEnv(password);
  for (const index of (await ok(restic(['-r', r.repository, '--no-cache', 'list', 'index'], { env }))).stdout.trim().split('\n')) {
    const { packs } = JSON.parse((await ok(restic(['-r', r.repository, '--no-cache', 'cat', 'index', index], { env }))).stdout) as {
      packs: { id: string; blobs: { id: string; offset: number; length: number }[] }[];
    };
    for (const p of packs) {
      const b = p.blobs.find((x) => x.id === id);
      if (!b) continue;
      const key = `${r.prefix}/data/${p.id.slice(0, 2)}/${p.id}`;
      const signer = serverSigner(r.server);
      const bytes = new Uint8Array(await (await fetch((await signer.sign({ method: 'GET', key })).url)).arrayBuffer());
      bytes[b.offset + (b.length >> 1)]! ^= 0x40;
      const put = await fetch((await signer.sign({ method: 'PUT', key })).url, { method: 'PUT', body: bytes });
      expect(put.ok).toBe(true);
      return p.id;
    }
  }
  throw new Error(`blob ${id} is in no index`);
}

/** The key IDs `restic key list` prints (restic 0.14 has no --json for it). */
export async function resticKeyIds(r: S3Repo, password: string): Promise<string[]> {
  const out = (await ok(restic(['-r', r.repository, '--no-cache', 'key', 'list'], { env: r.resticEnv(password) }))).stdout;
  return [...out.matchAll(/^[ *]([0-9a-f]{8})\s/gm)].map((m) => m[1]!);
}

/** Folder listings (tree blobs) the engine's offline cache holds, across repositories. */
export async function cachedTrees(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('cairn-engine');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const keys = open.result.transaction('objects').objectStore('objects').getAllKeys();
          keys.onsuccess = () => {
            resolve((keys.result as string[][]).filter((k) => k[1] === 'tree').length);
            open.result.close();
          };
          keys.onerror = () => reject(keys.error);
        };
      }),
  );
}

/** Deletes a file of an OPFS folder (a source file gone before the next backup). */
export async function removeOpfsFile(page: Page, path: string[]): Promise<void> {
  await page.evaluate(async (path) => {
    let d = await navigator.storage.getDirectory();
    for (const p of path.slice(0, -1)) d = await d.getDirectoryHandle(p);
    await d.removeEntry(path.at(-1)!);
  }, path);
}
