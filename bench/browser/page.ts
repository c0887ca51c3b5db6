// The benchmark page for the browser column: the app's real engine worker
// (workers/engine.worker.ts, through its typed EngineApi and comlink, exactly as web/lib/engine.ts
// starts it), driven by bench/browser/tool.mjs through `window.cairnBench`. Sources are
// `webkitdirectory` files (Playwright's setInputFiles on a dataset folder); repositories live in
// OPFS or in the local radosgw; restores go into an OPFS folder.
import * as Comlink from 'comlink';
import type { EngineApi, RepoLocation, Tuning, TuningApi } from '../../workers/api';
import { smallGarbageMade } from '../../core/memory/garbage';
import { servedFileList } from '../../workers/client/file-server';
import { hostWorkers } from '../../workers/client/worker-host';

/** The engine as this page's build has it: with the tuning knobs (./build.mjs defines `__CAIRN_TUNING__`). */
type Engine = EngineApi & TuningApi;

let engine: Comlink.Remote<Engine> | undefined;
function api(): Comlink.Remote<Engine> {
  if (!engine) {
    const worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'cairn-engine' });
    hostWorkers(worker);
    engine = Comlink.wrap<Engine>(worker);
  }
  return engine;
}

const OPFS_REPOS = 'cairn-repos';
const RESTORE_DIR = 'bench-restore';
/** Copies of datasets for the folder-handle source (BENCH_BROWSER_SOURCE=opfs). */
const STAGE_DIR = 'bench-src';
const MANIFEST = '.bench-manifest.json';

async function dirBytes(dir: FileSystemDirectoryHandle): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for await (const [, h] of (dir as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (h.kind === 'file') {
      bytes += (await (h as FileSystemFileHandle).getFile()).size;
      files++;
    } else {
      const sub = await dirBytes(h as FileSystemDirectoryHandle);
      bytes += sub.bytes;
      files += sub.files;
    }
  }
  return { bytes, files };
}

async function opfsDir(path: string[], create = true): Promise<FileSystemDirectoryHandle> {
  let d = await navigator.storage.getDirectory();
  for (const p of path) d = await d.getDirectoryHandle(p, { create });
  return d;
}

/**
 * Progress as the app takes it (a Comlink proxy the engine calls with each tick): the engine
 * then also runs its scan for totals and ETA, as it does for every backup the app starts.
 */
let progressTicks = 0;
const progress = () => {
  progressTicks = 0;
  return Comlink.proxy(() => void progressTicks++);
};

const bench = {
  async init(loc: RepoLocation, password: string, saverWorkers?: number, tune?: Tuning) {
    if (saverWorkers || tune) await api().tune({ ...(saverWorkers ? { workers: saverWorkers } : {}), ...tune });
    return api().createRepository(loc, password);
  },
  async open(loc: RepoLocation, password: string) {
    return api().openRepository(loc, password);
  },
  /** Backs up the files currently in #src. Resolves the engine's result view plus timings. */
  async backup() {
    const input = document.getElementById('src') as HTMLInputElement;
    const files = [...(input.files ?? [])];
    const relativePaths = files.map((f) => f.webkitRelativePath);
    // As the app does: a file input that keeps a 50 000-file selection costs Chromium's browser
    // process seconds of CPU each time it saves the page's form state (33 MB of paths).
    input.value = '';
    const t0 = performance.now();
    // As the app does: the Files stay in the page, served to the savers that read them (and
    // taken out of `files`: the list is used up).
    const count = files.length;
    const served = servedFileList(files, relativePaths);
    try {
      const r = await api().backup(Comlink.transfer({ source: served.source }, [served.source.server]), progress());
      return { ...r, pageMs: performance.now() - t0, files: count, progressTicks };
    } finally {
      served.close();
    }
  },
  /**
   * Mirrors the files in #src into OPFS [bench-src, <picked folder>], writing only files whose
   * size or time differ from the last copy (a manifest keeps the source's). OPFS files take the
   * time of their writing, so an unchanged file keeps its copy's time and reads as unchanged.
   */
  async stage() {
    const input = document.getElementById('src') as HTMLInputElement;
    const files = [...(input.files ?? [])];
    const rel = files.map((f) => f.webkitRelativePath.split('/'));
    const root = rel[0]![0]!;
    const top = await opfsDir([STAGE_DIR, root]);
    let old: Record<string, [number, number]> = {};
    try {
      old = JSON.parse(await (await (await top.getFileHandle(MANIFEST)).getFile()).text());
    } catch {
      // first copy
    }
    const manifest: Record<string, [number, number]> = {};
    const dirs = new Map<string, Promise<FileSystemDirectoryHandle>>();
    const dirOf = (parts: string[]): Promise<FileSystemDirectoryHandle> => {
      const key = parts.join('/');
      let d = dirs.get(key);
      if (!d) {
        d = parts.length === 0 ? Promise.resolve(top) : dirOf(parts.slice(0, -1)).then((p) => p.getDirectoryHandle(parts.at(-1)!, { create: true }));
        dirs.set(key, d);
      }
      return d;
    };
    let written = 0;
    let next = 0;
    const work = async () => {
      for (let i = next++; i < files.length; i = next++) {
        const f = files[i]!;
        const parts = rel[i]!.slice(1);
        const key = parts.join('/');
        manifest[key] = [f.size, f.lastModified];
        if (old[key]?.[0] === f.size && old[key]?.[1] === f.lastModified) continue;
        const fh = await (await dirOf(parts.slice(0, -1))).getFileHandle(parts.at(-1)!, { create: true });
        const w = await fh.createWritable();
        await w.write(f);
        await w.close();
        written++;
      }
    };
    await Promise.all(Array.from({ length: 16 }, work));
    let removed = 0;
    for (const key of Object.keys(old)) {
      if (key in manifest) continue;
      const parts = key.split('/');
      await (await dirOf(parts.slice(0, -1))).removeEntry(parts.at(-1)!).catch(() => {});
      removed++;
    }
    const mh = await top.getFileHandle(MANIFEST, { create: true });
    const mw = await mh.createWritable();
    await mw.write(JSON.stringify(manifest));
    await mw.close();
    input.value = '';
    return { root, files: files.length, written, removed };
  },
  /** Backs up the staged copy of `root` through its directory handle (the folder-picker path). */
  async backupStaged(root: string) {
    const handle = await opfsDir([STAGE_DIR, root], false);
    const t0 = performance.now();
    const r = await api().backup({ source: { kind: 'handle', handle }, excludes: [MANIFEST] }, progress());
    return { ...r, pageMs: performance.now() - t0, progressTicks };
  },
  async restore(snapshotId: string, name: string) {
    const target = await opfsDir([RESTORE_DIR, name]);
    const t0 = performance.now();
    const r = await api().restoreToFolder(snapshotId, [], target);
    return { ...r, pageMs: performance.now() - t0 };
  },
  /**
   * Downloads the whole snapshot as a ZIP the way the app does (the engine's streamed download
   * and its pull protocol), minus the service worker and the disk: the bytes are counted and dropped.
   */
  async zip(snapshotId: string) {
    const t0 = performance.now();
    const ticket = await api().download(snapshotId, [], 'zip');
    const port = ticket.port;
    let bytes = 0;
    for (;;) {
      const m = await new Promise<{ type: string; list?: Uint8Array[]; message?: string }>((resolve) => {
        port.onmessage = (ev) => resolve(ev.data);
        port.postMessage({ type: 'pull' });
      });
      // As the service worker does: the chunks it hands on (each with its whole buffer, small ones
      // too) are garbage it must have collected.
      if (m.type === 'chunks') {
        for (const b of m.list!) {
          bytes += b.length;
          smallGarbageMade(b.buffer.byteLength);
        }
      } else if (m.type === 'end') break;
      else throw new Error(m.message ?? 'download failed');
    }
    port.close();
    const r = await api().downloadResult(ticket.id);
    return { ...r, zipBytes: bytes, pageMs: performance.now() - t0 };
  },
  async restoredBytes(name: string) {
    return dirBytes(await opfsDir([RESTORE_DIR, name]));
  },
  async removeRestore(name: string) {
    const root = await opfsDir([RESTORE_DIR]);
    await root.removeEntry(name, { recursive: true }).catch(() => {});
  },
  async opfsRepoBytes(name: string) {
    return dirBytes(await opfsDir([OPFS_REPOS, name], false));
  },
  async removeOpfsRepo(name: string) {
    await api()
      .closeRepository()
      .catch(() => {});
    await api()
      .clearCache({ kind: 'opfs', name })
      .catch(() => {});
    const root = await opfsDir([OPFS_REPOS]);
    await root.removeEntry(name, { recursive: true }).catch(() => {});
  },
  async close() {
    await api()
      .closeRepository()
      .catch(() => {});
  },
  async stats() {
    return api().stats();
  },
};

/** EngineErrors are plain objects; Playwright would only show "Object". Make them Errors. */
function describe(e: unknown): Error {
  if (e instanceof Error) return e;
  const x = e as { code?: string; message?: string; detail?: unknown };
  return new Error(`${x?.code ?? 'ERROR'}: ${x?.message ?? JSON.stringify(e)}${x?.detail ? ` ${JSON.stringify(x.detail)}` : ''}`);
}
for (const [name, fn] of Object.entries(bench)) {
  (bench as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    try {
      return await (fn as (...a: unknown[]) => unknown)(...args);
    } catch (e) {
      throw describe(e);
    }
  };
}

declare global {
  interface Window {
    cairnBench: typeof bench;
  }
}
window.cairnBench = bench;
document.title = 'cairn bench ready';
