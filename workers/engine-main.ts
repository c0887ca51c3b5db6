// The engine worker's body, loaded by its entry (./engine.worker.ts): the page's only door to
// repositories (squoosh style: one worker, the page imports only its types). It holds the open
// repository, runs backups (coordinating the file-saver workers), browsing, restores and
// downloads. Methods reject with EngineError.

/// <reference lib="webworker" />
import * as Comlink from 'comlink';
import type { ProgressSnapshot } from '../core/progress';
import { CairnError } from '../core/errors';
import type {
  BackupRequest,
  DownloadKind,
  EngineApi,
  EngineStats,
  OfflineCacheProgress,
  OpenOptions,
  RepoLocation,
  RestorePatterns,
  SnapshotView,
  Tuning,
  TuningApi,
} from './api';
import * as db from './cache/db';
import { rememberList, rememberView } from './cache/last-view';
import { EngineFault, guarded } from './errors';
import { initWasm } from './wasm';
import { warmUp } from './warmup';
import { collectSoon } from '../core/memory/garbage';
import * as browse from './engine/browse';
import * as stats from './engine/stats';
import { clearCache, createRepository, forgetRemembered, openRepository, unlockRemembered, type Owner } from './engine/open';
import type { Session } from './engine/session';
import { snapshotView } from './engine/views';
import { repositoryTools } from './engine/tools';
import { engineOwner, removeDeadEngineLocks } from './engine/pack-journal';
import { useWorkerHost, WORKER_HOST } from './spawn';
import type { Sha256Use } from './sha256-choice';

/** Backup, restore and download code, loaded on first use (see ./engine/heavy). */
const heavy = () => import('./engine/heavy');
/**
 * The same, with the faster SHA-256 and AES of this browser chosen (what moves data needs),
 * and which ones they are: file-saver workers take the engine's choice instead of timing both
 * again (~0.2 s each, at the start of every backup).
 */
async function heavyWithCrypto(): Promise<Awaited<ReturnType<typeof heavy>> & { sha256: Sha256Use; aes: 'webcrypto' | 'wasm' }> {
  const h = await heavy();
  const sha256 = await h.chooseSha256();
  const aes = await h.chooseAes();
  return { ...h, sha256, aes };
}

let session: Session | undefined;
let running: { what: string; abort: AbortController } | undefined;
let lastBackup: EngineStats['lastBackup'];
/** Set only through `tune` (harness and benchmark builds); empty in the app, which keeps the defaults. */
let tuning: Tuning = {};

const current = (): Session => {
  if (!session) throw new EngineFault('NO_REPOSITORY', 'no repository is open');
  return session;
};

async function owner(): Promise<Owner> {
  const id = await db.clientId().catch(() => crypto.randomUUID());
  return { hostname: `browser-${id.slice(0, 8)}`, username: 'cairn' };
}

/** Resolved when the running operation ends (see exclusive). */
let idle: { promise: Promise<void>; resolve: () => void } | undefined;
function whenIdle(): Promise<void> {
  if (!idle) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    idle = { promise, resolve };
  }
  return idle.promise;
}

/** One long operation at a time; cancel() aborts it. */
async function exclusive<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (running) throw new EngineFault('BUSY', `${running.what} is still running`);
  const abort = new AbortController();
  running = { what, abort };
  try {
    return await fn(abort.signal);
  } finally {
    if (running?.abort === abort) {
      running = undefined;
      idle?.resolve();
      idle = undefined;
    }
    collectSoon();
  }
}

async function replace(next: Promise<Session>): Promise<Session> {
  await initWasm();
  const s = await next;
  const old = session;
  session = s;
  await old?.close();
  // The snapshot list needs only the snapshot files: everything else waits until the page has
  // it (or 3 s, for a page that opens on a folder or never lists).
  void Promise.race([s.firstList, new Promise((r) => setTimeout(r, 3000))]).then(() => session === s && warmInBackground(s, false));
  return s;
}

/** After the list: the index (browsing needs it), and the offline cache's fill unless the page starts it. */
function warmInBackground(s: Session, fill = true): void {
  const index = s.repo.loadIndex().catch(() => {});
  if (fill) s.warmOfflineCache().catch(() => {});
  // The rest after the index, which the first folder opened waits for.
  // Choosing SHA-256 and AES takes ~0.2 s of timing: done now, a backup or restore starts without it.
  void index.then(() => setTimeout(() => void heavyWithCrypto().catch(() => {}), 1000));
  // And savers started for the next backup, loaded by the time the user picks a folder.
  if (!s.offline) void index.then(() => setTimeout(() => void standByWhenIdle(s).catch(() => {}), 1000));
  // Locks left by a closed tab of this browser would hold off restic's check and prune for 30 minutes.
  if (!s.offline) setTimeout(() => void removeOwnDeadLocks(s).catch(() => {}), 1000);
}

/**
 * Starts the savers for the next backup once no operation runs (a restore or ZIP started
 * meanwhile keeps the cores; the savers follow when it ends), if `s` is still open.
 */
async function standByWhenIdle(s: Session): Promise<void> {
  while (running) await whenIdle();
  const h = await heavy();
  if (session === s && !running) h.standBySavers(h.saverWorkerCount({ workers: tuning.workers }));
}

async function removeOwnDeadLocks(s: Session): Promise<void> {
  const o = await owner();
  await removeDeadEngineLocks(s.repo, await engineOwner(o.hostname, o.username));
}

const api = {
  createRepository: (loc: RepoLocation, password: string, opts?: OpenOptions) =>
    guarded(async () => {
      await initWasm();
      return (await replace(createRepository(loc, password, await owner(), opts))).info();
    }),
  openRepository: (loc: RepoLocation, password: string, opts?: OpenOptions) =>
    guarded(async () => {
      await initWasm();
      return (await replace(openRepository(loc, password, opts))).info();
    }),
  unlockRemembered: (loc: RepoLocation, opts?: { offline?: boolean }) => guarded(async () => (await replace(unlockRemembered(loc, opts))).info()),
  forgetRemembered: (loc: RepoLocation) =>
    guarded(async () => {
      await forgetRemembered(loc);
      if (session) session.remembered = false;
    }),
  clearCache: (loc: RepoLocation) => guarded(() => clearCache(loc)),
  closeRepository: () =>
    guarded(async () => {
      running?.abort.abort();
      closing.abort();
      const s = session;
      session = undefined;
      await s?.close();
      void heavy().then(
        (h) => h.dropStandingSavers(),
        () => {},
      );
    }),
  repositoryInfo: () => guarded(async () => session?.info()),
  prepareOffline: (onProgress?: (p: OfflineCacheProgress) => unknown) => guarded(() => current().warmOfflineCache(onProgress)),

  listSnapshots: () =>
    guarded(async () => {
      const s = current();
      const list = (await s.snapshots()).map(snapshotView);
      keepList(s, list);
      s.listed();
      return list;
    }),
  listDir: (snapshotId: string, path: string[]) => guarded(() => browse.listDir(current(), snapshotId, path)),
  rememberView: (snapshotId: string, path: string[]) =>
    guarded(async () => {
      const s = current();
      if (!s.remembered) return false;
      const entry = (await s.snapshots()).find((e) => e.id === snapshotId);
      if (!entry) return false;
      const entries = await browse.listDir(s, snapshotId, path);
      return rememberView(s.locationKey, s.repo.config.id, { snapshot: snapshotView(entry), path, entries });
    }),
  search: (query: string, limit?: number) => guarded(() => browse.search(current(), query, limit)),
  versions: (path: string[]) => guarded(() => browse.versions(current(), path)),
  diff: (a: string, b: string) => guarded(() => browse.diff(current(), a, b)),
  repositoryStats: () => guarded(() => stats.repositoryStats(current())),
  snapshotSizes: (ids: string[]) => guarded(() => stats.snapshotSizes(current(), ids)),

  backup: (req: BackupRequest, onProgress?: (p: ProgressSnapshot) => void) =>
    guarded(() =>
      exclusive('a backup', async (signal) => {
        const s = current();
        const { backup, sha256, aes } = await heavyWithCrypto();
        if (tuning.packSize) s.repo.packSize = tuning.packSize;
        const r = await backup(s, req, {
          owner: await owner(),
          signal,
          onProgress,
          pool: {
            workers: tuning.workers,
            jobsPerWorker: tuning.jobsPerWorker,
            uploadsPerWorker: tuning.uploadsPerWorker,
            packBuffersPerWorker: tuning.packBuffersPerWorker,
            sha256: tuning.sha256 ?? sha256,
            aes: tuning.aes ?? aes,
          },
        });
        lastBackup = { filesRead: r.filesRead, durationMs: r.durationMs, bytes: r.bytes };
        warmInBackground(current());
        const { bytes: _bytes, ...view } = r;
        return view;
      }),
    ),
  cancel: async () => {
    running?.abort.abort(new CairnError('ABORTED', 'cancelled by the user'));
  },

  restoreToFolder: (
    snapshotId: string,
    path: string[],
    target: FileSystemDirectoryHandle,
    onProgress?: (p: ProgressSnapshot) => void,
    patterns?: RestorePatterns,
  ) =>
    guarded(() =>
      exclusive('a restore', async (signal) => {
        const { restoreToFolder } = await heavyWithCrypto();
        return restoreToFolder(current(), snapshotId, path, target, signal, onProgress, patterns);
      }),
    ),
  saveToFile: (snapshotId: string, path: string[], kind: DownloadKind, target: FileSystemFileHandle, onProgress?: (p: ProgressSnapshot) => void) =>
    guarded(() => exclusive('a download', async (signal) => (await heavy()).saveToFile(current(), snapshotId, path, kind, target, signal, onProgress))),
  download: (snapshotId: string, path: string[], kind: DownloadKind, onProgress?: (p: ProgressSnapshot) => void) =>
    guarded(async () => {
      const { producer, startDownload } = await heavyWithCrypto();
      const p = await producer(current(), snapshotId, path, kind);
      // Downloads run alongside other work (the browser's download manager owns their pace);
      // closing the repository cancels them.
      const ticket = startDownload(p, closeSignal(), onProgress);
      return Comlink.transfer(ticket, [ticket.port]);
    }),
  downloadResult: (id: string) => guarded(async () => (await heavy()).downloadResult(id)),

  ...repositoryTools({ current, exclusive, owner, replace, closeSignal }),

  stats: () =>
    guarded(async () => ({
      saverWorkers: (await heavy()).saverWorkerCount({ workers: tuning.workers }),
      indexBlobs: session?.repo.index.size ?? 0,
      cacheHits: session?.cached?.stats.hits ?? 0,
      cacheMisses: session?.cached?.stats.misses ?? 0,
      lastBackup,
    })),
} satisfies EngineApi & Record<string, unknown>;

/**
 * True in the builds for the engine harness and the benchmarks (vite define); false in the
 * app's, where the bundler drops `tuningApi` and the engine answers no `tune` call.
 */
declare const __CAIRN_TUNING__: boolean | undefined;
const tuningApi: TuningApi = {
  tune: async (t: Tuning) => {
    tuning = { ...tuning, ...t };
  },
};

/** What was last kept as the next start's snapshot list, per session (only changes are sealed again). */
const keptLists = new WeakMap<Session, string>();

/** Keeps the snapshot list, sealed, as the next start's first picture (remembered repositories only). */
function keepList(s: Session, list: SnapshotView[]): void {
  if (!s.remembered) return;
  const sig = list.map((v) => v.id).join();
  if (keptLists.get(s) === sig) return;
  keptLists.set(s, sig);
  void rememberList(s.locationKey, s.repo.config.id, list).catch(() => keptLists.delete(s));
}

let closing = new AbortController();
function closeSignal(): AbortSignal {
  if (closing.signal.aborted) closing = new AbortController();
  return closing.signal;
}

export type EngineWorkerApi = typeof api;

// The page's offer to start this engine's workers (./spawn.ts), its first message if it makes
// one; comlink never sees it.
self.addEventListener('message', (ev: MessageEvent) => {
  const port = (ev.data as Record<string, unknown> | null)?.[WORKER_HOST];
  if (!(port instanceof MessagePort)) return;
  ev.stopImmediatePropagation();
  useWorkerHost(port);
});

warmUp();

Comlink.expose(typeof __CAIRN_TUNING__ !== 'undefined' && __CAIRN_TUNING__ ? { ...api, ...tuningApi } : api);
