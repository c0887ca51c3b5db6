// The browser side of test data: source folders written into OPFS, the test-only folder picker
// hook (honoured only by the e2e build, see vite.config.ts), and digests of restored folders.

import type { Page } from '@playwright/test';
import { bytesOf, toBase64, type FileSpec } from './data';

export type PickPurpose = 'source' | 'repository' | 'restore';

/** Installs window.__cairnTestPickDirectory for this page (and its reloads). */
export async function installPickHook(page: Page): Promise<void> {
  await page.addInitScript(() => {
    window.__cairnTestPickDirectory = async (purpose: string) => {
      const raw = localStorage.getItem('cairn-e2e-pick-' + purpose);
      if (!raw) throw new DOMException(`no e2e folder set for ${purpose}`, 'AbortError');
      let dir = await navigator.storage.getDirectory();
      for (const part of JSON.parse(raw) as string[]) dir = await dir.getDirectoryHandle(part, { create: true });
      return dir;
    };
  });
}

/** What the next "Choose folder…" for `purpose` returns: the OPFS folder at `dir`. */
export async function setPick(page: Page, purpose: PickPurpose, dir: string[]): Promise<void> {
  await page.evaluate(([p, d]) => localStorage.setItem('cairn-e2e-pick-' + p, JSON.stringify(d)), [purpose, dir] as const);
}

/** Writes `tree` under OPFS `dir` (creating folders; overwriting files). */
export async function writeOpfsTree(page: Page, dir: string[], tree: FileSpec[]): Promise<void> {
  const files = tree.map((f) => ({ path: f.path, b64: toBase64(bytesOf(f)) }));
  await page.evaluate(
    async ({ dir, files }) => {
      let root = await navigator.storage.getDirectory();
      for (const part of dir) root = await root.getDirectoryHandle(part, { create: true });
      for (const f of files) {
        const parts = f.path.split('/');
        let d = root;
        for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
        const fh = await d.getFileHandle(parts.at(-1)!, { create: true });
        const w = await fh.createWritable();
        const bin = atob(f.b64);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        await w.write(bytes);
        await w.close();
      }
    },
    { dir, files },
  );
}

/** `count` files of `size` random bytes each, written in the page (too big to ship from Node). */
export async function writeRandomFiles(page: Page, dir: string[], count: number, size: number): Promise<void> {
  await page.evaluate(
    async ({ dir, count, size }) => {
      let d = await navigator.storage.getDirectory();
      for (const p of dir) d = await d.getDirectoryHandle(p, { create: true });
      const buf = new Uint8Array(size);
      for (let i = 0; i < count; i++) {
        for (let o = 0; o < size; o += 65536) crypto.getRandomValues(buf.subarray(o, Math.min(size, o + 65536)));
        const w = await (await d.getFileHandle(`file-${String(i).padStart(3, '0')}.bin`, { create: true })).createWritable();
        await w.write(buf);
        await w.close();
      }
    },
    { dir, count, size },
  );
}

/** Every file under OPFS `dir`: relative path → SHA-256 (computed in the page). */
export async function opfsDigests(page: Page, dir: string[]): Promise<Record<string, string>> {
  return page.evaluate(async (dir) => {
    let root = await navigator.storage.getDirectory();
    for (const part of dir) root = await root.getDirectoryHandle(part);
    const out: Record<string, string> = {};
    const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
    const walk = async (d: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
      for await (const [name, h] of (d as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
        if (h.kind === 'directory') await walk(h as FileSystemDirectoryHandle, prefix + name + '/');
        else out[prefix + name] = hex(await crypto.subtle.digest('SHA-256', await (await (h as FileSystemFileHandle).getFile()).arrayBuffer()));
      }
    };
    await walk(root, '');
    return out;
  }, dir);
}
