// The open repository: unlocking (create / open / remembered key), which remembered entry it
// is, and closing. The password is used once — handed to the engine (and, when the user asked
// to remember bucket keys, to ./secrets.ts) — and never kept in any field here.

import type { DeviceInfo, RepoInfo, RepoLocation, S3Auth } from '../../workers/api';
import type { Access } from '../../core/presign/access';
import { notAllowed } from '../lib/device-role';
import { writeBootHint } from '../lib/boot';
import { putRepo, setPref, touchRepo, type RememberedRepo } from '../lib/db';
import { engine } from '../lib/engine';
import { describeError, isCode, type Described } from '../lib/messages';
import { decryptSecret, encryptSecret } from '../lib/secrets';
import { defaultLabel, toEngine, toStored } from '../lib/locations';
import { network } from './network.svelte';
import { remembered } from './remembered.svelte';
import { snapshots } from './snapshots.svelte';
import { tree } from './tree.svelte';
import { diff, search, versions } from './explore.svelte';
import { dashboard } from './dashboard.svelte';
import { offlineCache } from './offline-cache.svelte';

export interface UnlockRequest {
  /** A remembered entry to unlock (its stored location), or a new location typed in. */
  entry?: RememberedRepo;
  location?: RepoLocation;
  /** Bucket credentials typed now (else the entry's encrypted ones are used). */
  auth?: S3Auth;
  password: string;
  create?: boolean;
  label?: string;
  /** Keep this location in the list (no secrets). */
  remember?: boolean;
  /** Also keep the bucket credentials, encrypted with the repository password. */
  rememberKeys?: boolean;
  /** Let the engine keep the master key on this device (opens without a password). */
  stayUnlocked?: boolean;
  /** Recovery: open with this master key (a recovery sheet's) and add a key for `password`. */
  masterKey?: string;
}

export const LAST_REPO_PREF = 'lastRepo';

/** What was shown of a repository: nothing of it outlives the session. */
function forgetShown(): void {
  snapshots.clear();
  dashboard.clear();
  tree.clear();
  search.results.clear();
  versions.results.clear();
  diff.results.clear();
  offlineCache.clear();
}

class RepoSession {
  #info = $state.raw<RepoInfo | undefined>();
  #entry = $state.raw<RememberedRepo | undefined>();
  #location = $state.raw<RepoLocation | undefined>();
  #busy = $state(false);
  #error = $state.raw<Described | undefined>();

  get info(): RepoInfo | undefined {
    return this.#info;
  }
  get entry(): RememberedRepo | undefined {
    return this.#entry;
  }
  get kind(): RepoLocation['kind'] | undefined {
    return this.#location?.kind;
  }
  get label(): string {
    if (this.#entry) return this.#entry.label;
    return this.#location ? defaultLabel(toStored(this.#location)) : '';
  }
  /** This device at its presign endpoint (name, role), when the repository was opened through one. */
  get device(): DeviceInfo | undefined {
    return this.#info?.device;
  }
  /** Why this device's role does not allow what needs `access` (one line), or undefined. */
  notAllowed(access: Access): string | undefined {
    return notAllowed(this.#info?.device, access);
  }
  get isOpen(): boolean {
    return this.#info !== undefined;
  }
  get busy(): boolean {
    return this.#busy;
  }
  get error(): Described | undefined {
    return this.#error;
  }

  clearError(): void {
    this.#error = undefined;
  }

  /** Creates or opens; returns false (with `error` set) on failure. */
  async unlock(req: UnlockRequest): Promise<boolean> {
    this.#busy = true;
    this.#error = undefined;
    performance.mark('cairn:unlock-start');
    try {
      if (req.entry && !req.location && !req.create && !req.masterKey) this.#prepare(req.entry, req.password);
      const location = req.location ?? (await this.#locationOf(req));
      // Only a bucket needs the network; this browser's storage and a local folder are always there.
      const offline = location.kind === 's3' && !network.online && !req.create;
      const opts = { offline, remember: !!req.stayUnlocked };
      let info: RepoInfo;
      try {
        info = req.masterKey
          ? await engine().recoverAccess(location, req.masterKey, req.password, opts)
          : req.create
            ? await engine().createRepository(location, req.password, opts)
            : await engine().openRepository(location, req.password, opts);
      } catch (e) {
        // The network went away without the browser noticing: the offline cache may still open it.
        if (req.create || req.masterKey || offline || !isCode(e, 'NETWORK')) throw e;
        info = await engine().openRepository(location, req.password, { ...opts, offline: true });
      }
      const entry = await this.#remember(req, location, info);
      this.#opened(info, location, entry);
      return true;
    } catch (e) {
      this.#error = describeError(e);
      return false;
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Opens with the master key the engine remembered for this entry (no password); `early` is
   * that same request already sent at boot (../lib/boot.ts).
   */
  async unlockRemembered(entry: RememberedRepo, early?: Promise<RepoInfo>): Promise<boolean> {
    this.#busy = true;
    this.#error = undefined;
    if (!early) performance.mark('cairn:unlock-start');
    try {
      const location = toEngine(entry.location);
      const info = await (early ?? engine().unlockRemembered(location, { offline: location.kind === 's3' && !network.online }));
      this.#opened(info, location, entry);
      await touchRepo(entry.id, info.id);
      await remembered.refresh();
      return true;
    } catch (e) {
      if (!isCode(e, 'NOT_REMEMBERED')) this.#error = describeError(e);
      return false;
    } finally {
      this.#busy = false;
    }
  }

  async close(): Promise<void> {
    this.#info = undefined;
    this.#location = undefined;
    this.#entry = undefined;
    forgetShown();
    await engine().closeRepository();
  }

  /** The "stay unlocked" choice is undone: the engine forgets the key for this entry. */
  async forgetKey(entry: RememberedRepo): Promise<void> {
    await engine().forgetRemembered(toEngine(entry.location));
    await remembered.save({ ...entry, autoUnlock: false });
    if (this.#entry?.id === entry.id) this.#entry = { ...entry, autoUnlock: false };
    writeBootHint(undefined);
  }

  async refreshInfo(): Promise<void> {
    const info = await engine().repositoryInfo();
    if (info) this.#info = info;
  }

  #opened(info: RepoInfo, location: RepoLocation, entry: RememberedRepo | undefined): void {
    this.#location = location;
    this.#entry = entry;
    this.#info = info;
    // The offline cache fills after the list is shown, in the background.
    void snapshots.load();
    void snapshots.whenListed().then(() => {
      if (this.#info === info) void offlineCache.start(info);
    });
    performance.mark('cairn:unlocked');
    void setPref(LAST_REPO_PREF, entry?.id ?? null);
    writeBootHint(entry);
  }

  /** The unlock form is up for `entry`: the engine readies its key derivation (only a head start). */
  expectUnlock(entry: RememberedRepo): void {
    engine()
      .expectUnlock(toEngine(entry.location))
      .catch(() => {});
  }

  /** The engine starts the password's scrypt while the bucket's keys are decrypted here (#locationOf). */
  #prepare(entry: RememberedRepo, password: string): void {
    engine()
      .prepareUnlock(toEngine(entry.location), password)
      .catch(() => {}); // only a head start: the open does the work itself if this did not
  }

  async #locationOf(req: UnlockRequest): Promise<RepoLocation> {
    const entry = req.entry;
    if (!entry) throw { code: 'USAGE', message: 'no repository location given', retryable: false };
    if (entry.location.kind !== 's3') return toEngine(entry.location);
    if (req.auth) return toEngine(entry.location, req.auth);
    if (entry.credentials) return toEngine(entry.location, await decryptSecret<S3Auth>(entry.credentials, req.password, entry.id));
    return toEngine(entry.location); // offline or engine-remembered keys
  }

  async #remember(req: UnlockRequest, location: RepoLocation, info: RepoInfo): Promise<RememberedRepo | undefined> {
    const existing = req.entry ?? (await remembered.find(toStored(location)));
    if (!existing && !req.remember) return undefined;
    const id = existing?.id ?? crypto.randomUUID();
    const entry: RememberedRepo = {
      ...existing, // what other pages keep with the entry (its retention rules, say)
      id,
      label: req.label?.trim() || existing?.label || defaultLabel(toStored(location)),
      location: toStored(location),
      credentials: existing?.credentials,
      repoId: info.id,
      lastUsed: Date.now(),
      autoUnlock: req.stayUnlocked ?? existing?.autoUnlock ?? false,
    };
    if (location.kind === 's3' && req.rememberKeys && req.auth) entry.credentials = await encryptSecret(req.auth, req.password, id);
    else if (location.kind === 's3' && req.rememberKeys === false && req.auth) entry.credentials = undefined;
    await putRepo(entry);
    await remembered.refresh();
    return entry;
  }
}

export const session = new RepoSession();
