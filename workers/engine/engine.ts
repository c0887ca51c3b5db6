// The engine: the page's only door to repositories (squoosh style: one worker exposes this one
// object, the page imports only its type, ../api.ts EngineApi). It holds the open session and
// the operation slot (./operation-slot.ts: one long operation at a time), and each method is a
// short delegation to the module that does the work. Errors become EngineError at the worker
// boundary (../errors.ts guardedMethods), not here.

import * as Comlink from 'comlink';
import type { ProgressSnapshot } from '../../core/progress';
import type {
  BackupRequest,
  BackupResultView,
  DownloadKind,
  EngineApi,
  EngineStats,
  OfflineCacheProgress,
  OpenOptions,
  OperationView,
  RepoLocation,
  RestorePatterns,
  SnapshotView,
  Tuning,
} from '../api';
import type { CheckShare, ForgetRequest, NewKeyOptions, PolicyInput, RetentionScope, SelectionRequest } from '../tools-api';
import { rememberList, rememberView } from '../cache/last-view';
import { EngineFault } from '../errors';
import { initWasm } from '../wasm';
import * as browse from './browse';
import * as stats from './stats';
import { addRepositoryKey, changePassword, listKeys, removeRepositoryKey } from './keys';
import { clearCache, createRepository, forgetRemembered, openRepository, recoverWithMasterKey, unlockRemembered } from './open';
import { expectUnlock, prepareUnlock } from './prepare-unlock';
import { locationKey } from '../location';
import { OperationSlot } from './operation-slot';
import { recoverySheet } from './recovery';
import { forget, previewForget } from './retention';
import { freeSpace } from './free-space';
import { heavy, heavyTools, heavyWithCrypto, engineUser, removeOwnDeadLocks } from './lazy';
import type { Session } from './session';
import { snapshotView } from './views';

type Progress = ((p: ProgressSnapshot) => void) | undefined;

export class Engine implements EngineApi {
  #session: Session | undefined;
  readonly #slot = new OperationSlot();
  /** Aborted when the repository is closed (streamed downloads run beside the slot). */
  #closing = new AbortController();
  #lastBackup: EngineStats['lastBackup'];
  /** What was last kept as the next start's snapshot list, per session (only changes are sealed again). */
  readonly #keptLists = new WeakMap<Session, string>();
  /** Set only through TunableEngine.tune (harness and benchmark builds); empty in the app. */
  protected tuning: Tuning = {};

  // ---- repositories -------------------------------------------------------------------------

  async createRepository(loc: RepoLocation, password: string, opts?: OpenOptions) {
    await initWasm();
    return (await this.#replace(createRepository(loc, password, await engineUser(), opts))).openInfo();
  }
  async openRepository(loc: RepoLocation, password: string, opts?: OpenOptions) {
    await initWasm();
    return (await this.#replace(openRepository(loc, password, opts))).openInfo();
  }
  prepareUnlock(loc: RepoLocation, password: string) {
    return prepareUnlock(locationKey(loc), password);
  }
  expectUnlock(loc: RepoLocation) {
    return expectUnlock(locationKey(loc));
  }
  async unlockRemembered(loc: RepoLocation, opts?: { offline?: boolean }) {
    return (await this.#replace(unlockRemembered(loc, opts))).openInfo();
  }
  async recoverAccess(loc: RepoLocation, masterKey: string, password: string, opts?: OpenOptions) {
    return (await this.#replace(recoverWithMasterKey(loc, masterKey, password, await engineUser(), opts))).openInfo();
  }
  async forgetRemembered(loc: RepoLocation) {
    await forgetRemembered(loc);
    if (this.#session) this.#session.remembered = false;
  }
  clearCache(loc: RepoLocation) {
    return clearCache(loc);
  }
  async closeRepository() {
    this.#slot.cancel();
    this.#closing.abort();
    const s = this.#session;
    this.#session = undefined;
    await s?.close();
    void heavy().then(
      (h) => h.dropStandingSavers(),
      () => {},
    );
  }
  async repositoryInfo() {
    return this.#session?.info();
  }
  prepareOffline(onProgress?: (p: OfflineCacheProgress) => unknown) {
    return this.#current().warmOfflineCache(onProgress);
  }

  // ---- browsing -----------------------------------------------------------------------------

  async listSnapshots() {
    const s = this.#current();
    const list = (await s.pageSnapshots()).map(snapshotView);
    this.#keepList(s, list);
    s.listed();
    return list;
  }
  listDir(snapshotId: string, path: string[]) {
    return browse.listDir(this.#current(), snapshotId, path);
  }
  async rememberView(snapshotId: string, path: string[]) {
    const s = this.#current();
    if (!s.remembered) return false;
    const entry = (await s.snapshots()).find((e) => e.id === snapshotId);
    if (!entry) return false;
    const entries = await browse.listDir(s, snapshotId, path);
    return rememberView(s.locationKey, s.repo.config.id, { snapshot: snapshotView(entry), path, entries });
  }
  search(query: string, limit?: number) {
    return browse.search(this.#current(), query, limit);
  }
  versions(path: string[]) {
    return browse.versions(this.#current(), path);
  }
  diff(a: string, b: string) {
    return browse.diff(this.#current(), a, b);
  }
  repositoryStats() {
    return stats.repositoryStats(this.#current());
  }
  snapshotSizes(ids: string[]) {
    return stats.snapshotSizes(this.#current(), ids);
  }

  // ---- the operation slot -------------------------------------------------------------------

  async operation(): Promise<OperationView | undefined> {
    return this.#slot.current;
  }
  async cancel() {
    this.#slot.cancel();
  }

  backup(req: BackupRequest, onProgress?: Progress): Promise<BackupResultView> {
    return this.#slot.run('backup', req.owner, onProgress, async (run) => {
      const s = this.#current();
      s.requireAccess('write', 'backing up');
      const { backup, sha256, aes } = await heavyWithCrypto();
      const { packSize, ...pool } = this.tuning;
      if (packSize) s.repo.packSize = packSize;
      const r = await backup(s, req, { owner: await engineUser(), ...run, pool: { ...pool, sha256: pool.sha256 ?? sha256, aes: pool.aes ?? aes } });
      this.#lastBackup = { filesRead: r.filesRead, durationMs: r.durationMs, bytes: r.bytes };
      this.#warmInBackground(this.#current());
      const { bytes: _bytes, ...view } = r;
      return view;
    });
  }
  restoreToFolder(snapshotId: string, path: string[], target: FileSystemDirectoryHandle, onProgress?: Progress, patterns?: RestorePatterns) {
    return this.#slot.run('restore', undefined, onProgress, async (run) =>
      (await heavyWithCrypto()).restoreToFolder(this.#current(), snapshotId, path, target, run.signal, run.onProgress, patterns),
    );
  }
  restoreSelection(req: SelectionRequest, target: FileSystemDirectoryHandle, patterns?: RestorePatterns, onProgress?: Progress) {
    return this.#slot.run('restore', undefined, onProgress, async (run) =>
      (await heavyTools()).restoreSelection(this.#current(), req, target, patterns ?? {}, run.signal, run.onProgress),
    );
  }
  saveToFile(snapshotId: string, path: string[], kind: DownloadKind, target: FileSystemFileHandle, onProgress?: Progress) {
    return this.#slot.run('save', undefined, onProgress, async (run) =>
      (await heavy()).saveToFile(this.#current(), snapshotId, path, kind, target, run.signal, run.onProgress),
    );
  }
  checkRepository(share: CheckShare, onProgress?: Progress) {
    return this.#slot.run('check', undefined, onProgress, async (run) => {
      const s = this.#current();
      s.requireAccess('write', 'checking the repository (it takes a lock)');
      return (await heavyTools()).runCheck(s, share, await engineUser(), run.signal, run.onProgress);
    });
  }
  forget(req: ForgetRequest, onProgress?: Progress) {
    return this.#slot.run('forget', req.owner, onProgress, async (run) => forget(this.#current(), req, await engineUser(), run.signal, run.onProgress));
  }

  // ---- downloads (beside the slot: the browser's download manager owns their pace) -----------

  async download(snapshotId: string, path: string[], kind: DownloadKind, onProgress?: Progress) {
    const { producer, startDownload } = await heavyWithCrypto();
    const ticket = startDownload(await producer(this.#current(), snapshotId, path, kind), this.#closeSignal(), onProgress);
    return Comlink.transfer(ticket, [ticket.port]);
  }
  async downloadSelection(req: SelectionRequest, onProgress?: Progress) {
    const t = await heavyTools();
    const ticket = t.startDownload(await t.selectionProducer(this.#current(), req), this.#closeSignal(), onProgress);
    return Comlink.transfer(ticket, [ticket.port]);
  }
  async downloadResult(id: string) {
    return (await heavy()).downloadResult(id);
  }

  // ---- keys, recovery, retention ------------------------------------------------------------

  listKeys() {
    return listKeys(this.#current());
  }
  async addKey(password: string, opts?: NewKeyOptions) {
    return addRepositoryKey(this.#current(), password, await engineUser(), opts);
  }
  async changePassword(currentPassword: string, next: string) {
    return changePassword(this.#current(), currentPassword, next, await engineUser());
  }
  async removeKey(id: string, opts?: { allowCurrent?: boolean }) {
    return removeRepositoryKey(this.#current(), id, await engineUser(), opts);
  }
  recoverySheet(password: string) {
    return recoverySheet(this.#current(), password);
  }
  async previewForget(policy: PolicyInput, opts?: RetentionScope & { withPrune?: boolean }) {
    return previewForget(this.#current(), policy, await engineUser(), opts);
  }
  async hasPrune() {
    return freeSpace !== undefined;
  }

  async stats(): Promise<EngineStats> {
    return {
      saverWorkers: (await heavy()).saverWorkerCount({ workers: this.tuning.workers }),
      indexBlobs: this.#session?.repo.index.size ?? 0,
      cacheHits: this.#session?.cached?.stats.hits ?? 0,
      cacheMisses: this.#session?.cached?.stats.misses ?? 0,
      lastBackup: this.#lastBackup,
    };
  }

  // ---- the session --------------------------------------------------------------------------

  #current(): Session {
    if (!this.#session) throw new EngineFault('NO_REPOSITORY', 'no repository is open');
    return this.#session;
  }

  /** Makes `next` the open session (closing the old one) and returns it. */
  async #replace(next: Promise<Session>): Promise<Session> {
    await initWasm();
    const s = await next;
    const old = this.#session;
    this.#session = s;
    await old?.close();
    // The snapshot list needs only the snapshot files: everything else waits until the page has
    // it (or 3 s, for a page that opens on a folder or never lists).
    void Promise.race([s.firstList, new Promise((r) => setTimeout(r, 3000))]).then(() => this.#session === s && this.#warmInBackground(s, false));
    return s;
  }

  /** After the list: the outlines and the index (./session.ts warmUpIndex), and the offline cache's fill unless the page starts it. */
  #warmInBackground(s: Session, fill = true): void {
    const index = s.warmUpIndex().catch(() => {});
    if (fill) s.warmOfflineCache().catch(() => {});
    // The rest after the index, which the first folder opened waits for. Choosing SHA-256 and
    // AES takes ~0.2 s of timing: done now, a backup or restore starts without it.
    void index.then(() => setTimeout(() => void heavyWithCrypto().catch(() => {}), 1000));
    if (s.offline) return;
    // Savers started for the next backup, loaded by the time the user picks a folder.
    void index.then(() => setTimeout(() => void this.#standByWhenIdle(s).catch(() => {}), 1000));
    // Locks left by a closed tab of this browser would hold off restic's check and prune for 30 minutes.
    setTimeout(() => void removeOwnDeadLocks(s).catch(() => {}), 1000);
  }

  /**
   * Starts the savers for the next backup once the slot is free (a restore or check started
   * meanwhile keeps the cores; the savers follow when it ends), if `s` is still open.
   */
  async #standByWhenIdle(s: Session): Promise<void> {
    while (this.#slot.current) await this.#slot.idle();
    const h = await heavy();
    if (this.#session === s && !this.#slot.current) h.standBySavers(h.saverWorkerCount({ workers: this.tuning.workers }));
  }

  /** Keeps the snapshot list, sealed, as the next start's first picture (remembered repositories only). */
  #keepList(s: Session, list: SnapshotView[]): void {
    if (!s.remembered) return;
    const sig = list.map((v) => v.id).join();
    if (this.#keptLists.get(s) === sig) return;
    this.#keptLists.set(s, sig);
    void rememberList(s.locationKey, s.repo.config.id, list).catch(() => this.#keptLists.delete(s));
  }

  #closeSignal(): AbortSignal {
    if (this.#closing.signal.aborted) this.#closing = new AbortController();
    return this.#closing.signal;
  }
}

/** The engine of the harness and benchmark builds: the same, plus pool and pack settings. */
export class TunableEngine extends Engine {
  async tune(t: Tuning): Promise<void> {
    this.tuning = { ...this.tuning, ...t };
  }
}
