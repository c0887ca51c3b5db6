// A bare page for the engine e2e specs (test/e2e/engine-*.spec.ts): it starts the real engine
// worker and service worker and puts a handle on `window.harness`, so a spec drives the worker
// API directly inside page.evaluate(). Built only by ./vite.config.ts, never into the app.

import * as Comlink from 'comlink';
import type { EngineApi, TuningApi } from '../../../workers/api';
import { pendingPacks, putPendingPack } from '../../../workers/cache/db';
import { startDownload } from '../../../workers/client/download';
import { browserFileReader } from '../../../workers/source/file-reader';
import { handleSource } from '../../../workers/source/handle-source';
import { hostWorkers } from '../../../workers/client/worker-host';
import { spawnThroughHost } from './spawn-probe';

/** The engine as this page's build has it: with the tuning knobs (./vite.config.ts defines `__CAIRN_TUNING__`). */
type Engine = Comlink.Remote<EngineApi & TuningApi>;

function startEngine(): { engine: Engine; stop(): void } {
  const worker = new Worker(new URL('../../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'cairn-engine' });
  const stopHosting = hostWorkers(worker);
  return {
    engine: Comlink.wrap(worker) as unknown as Engine,
    // What the app's createEngine().terminate() does: the engine and the workers it started go at once.
    stop: () => {
      worker.terminate();
      stopHosting();
    },
  };
}
let running = startEngine();
const engine = running.engine;

/** Terminates the engine worker (and its saver workers) wherever it is, and starts a new one as harness.engine. */
function restartEngine(): void {
  running.stop();
  running = startEngine();
  harness.engine = running.engine;
}

async function opfsDir(path: string[], create = true): Promise<FileSystemDirectoryHandle> {
  let d = await navigator.storage.getDirectory();
  for (const p of path) d = await d.getDirectoryHandle(p, { create });
  return d;
}

/** Every file under an OPFS folder: relative path → SHA-256 hex. */
async function digestOpfs(path: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
  const walk = async (d: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
    for await (const h of d.values()) {
      if (h.kind === 'directory') await walk(h, prefix + h.name + '/');
      else out[prefix + h.name] = hex(await crypto.subtle.digest('SHA-256', await (await h.getFile()).arrayBuffer()));
    }
  };
  await walk(await opfsDir(path, false), '');
  return out;
}

/** Every file under an OPFS folder as base64 (to copy a small repository out for restic). */
async function exportOpfs(path: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
    for await (const h of d.values()) {
      if (h.kind === 'directory') await walk(h, prefix + h.name + '/');
      else {
        const bytes = new Uint8Array(await (await h.getFile()).arrayBuffer());
        let s = '';
        for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        out[prefix + h.name] = btoa(s);
      }
    }
  };
  await walk(await opfsDir(path, false), '');
  return out;
}

/**
 * Writes files of seeded bytes under an OPFS folder, generated here (the same xorshift as
 * test/e2e/helpers/data.ts bytesOf), so large trees need not cross from Node as base64.
 */
async function writeSeeded(dir: string[], files: { path: string; size: number; seed: number }[]): Promise<void> {
  const root = await opfsDir(dir);
  for (const f of files) {
    const parts = f.path.split('/');
    let d = root;
    for (const p of parts.slice(0, -1)) d = await d.getDirectoryHandle(p, { create: true });
    const out = new Uint8Array(f.size);
    let x = f.seed >>> 0 || 1;
    for (let i = 0; i < out.length; i++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      out[i] = x & 0xff;
    }
    const w = await (await d.getFileHandle(parts[parts.length - 1]!, { create: true })).createWritable();
    await w.write(out);
    await w.close();
  }
}

async function removeOpfs(name: string): Promise<void> {
  await (await navigator.storage.getDirectory()).removeEntry(name, { recursive: true }).catch(() => {});
}

/** webkitdirectory-style File list from an OPFS folder (File objects + relative paths). */
async function filesOf(path: string[]): Promise<{ files: File[]; relativePaths: string[] }> {
  const files: File[] = [];
  const relativePaths: string[] = [];
  const walk = async (d: FileSystemDirectoryHandle, prefix: string): Promise<void> => {
    for await (const h of d.values()) {
      if (h.kind === 'directory') await walk(h, prefix + h.name + '/');
      else {
        files.push(await h.getFile());
        relativePaths.push(prefix + h.name);
      }
    }
  };
  await walk(await opfsDir(path, false), path[path.length - 1] + '/');
  return { files, relativePaths };
}

async function swReady(): Promise<boolean> {
  if (!('serviceWorker' in navigator)) return false;
  await navigator.serviceWorker.register('./sw.js', { scope: './' });
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  return true;
}

/**
 * Reads files through the saver workers' reader, all opened at once as a saver does (here on
 * the page: this checks Chromium's Blob plumbing, which is the same in a worker). Per file:
 * the SHA-256 hex of what was read, or the error's code and DOM error name.
 */
async function readThroughSaverReader(files: File[]): Promise<({ sha: string } | { code: string; domError?: string })[]> {
  const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
  return Promise.all(
    files.map(async (f) => {
      try {
        const opened = await browserFileReader.open!(f, f.size);
        const parts: Uint8Array<ArrayBuffer>[] = [];
        const buf = new Uint8Array(1 << 20);
        for (let n; (n = await opened.readInto(buf)) > 0;) parts.push(buf.slice(0, n));
        await opened.close();
        return { sha: hex(await crypto.subtle.digest('SHA-256', await new Blob(parts).arrayBuffer())) };
      } catch (e) {
        const err = e as { code: string; detail?: { domError?: string } };
        return { code: err.code, domError: err.detail?.domError };
      }
    }),
  );
}

/**
 * Lists an OPFS folder's directory through the engine's handle source as a backup does (the
 * progress scan and the walk), `together` at once or one after the other, counting the real
 * getFile() calls made (here on the page: the same code runs in the engine worker). Per
 * listing: name, size, lastModified, and whether its ref is a File or a handle.
 */
async function listTwice(path: string[], together: boolean, sharedLimit?: number) {
  const root = await opfsDir(path, false);
  const proto = FileSystemFileHandle.prototype;
  const getFile = proto.getFile;
  let calls = 0;
  proto.getFile = function (this: FileSystemFileHandle) {
    calls++;
    return getFile.call(this);
  };
  try {
    const src = handleSource(root, { sharedLimit });
    const dir = await src.stat(src.target);
    const errors: string[] = [];
    const list = () => src.readDir(dir, (p) => errors.push(p));
    const lists = together ? await Promise.all([list(), list()]) : [await list(), await list()];
    const view = (entries: Awaited<ReturnType<typeof list>>) =>
      entries
        .map((e) => ({
          name: e.node.name,
          type: e.node.type,
          size: e.size,
          mtime: e.node.mtime?.toString(),
          ref: e.ref instanceof File ? 'file' : e.ref instanceof FileSystemFileHandle ? 'handle' : 'dir',
        }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
    return { calls, errors, lists: lists.map(view) };
  } finally {
    proto.getFile = getFile;
  }
}

const harness = {
  engine,
  spawnThroughHost,
  readThroughSaverReader,
  listTwice,
  proxy: Comlink.proxy,
  opfsDir,
  digestOpfs,
  exportOpfs,
  removeOpfs,
  writeSeeded,
  filesOf,
  putPendingPack,
  pendingPacks,
  restartEngine,
  startDownload: (id: string, path: string[], kind: 'file' | 'zip') => startDownload(harness.engine, id, path, kind),
  swReady,
};
declare global {
  interface Window {
    harness: typeof harness;
  }
}
window.harness = harness;
document.getElementById('status')!.textContent = 'ready';
