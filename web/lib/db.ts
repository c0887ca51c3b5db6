// The page's own IndexedDB database ("cairn-ui"), owned by this one module (idb's typed
// DBSchema): remembered repositories, remembered backup folders (directory handles, which
// structured-clone into IndexedDB), backup plans, the history of operations and small UI
// preferences. Nothing secret is ever stored in
// the clear: a repository's credentials are kept only when the user asks, and then only as
// the AES-GCM ciphertext made by ./secrets.ts. The engine's metadata cache is the worker's
// own database, not this one.

import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { HistoryRecord } from './history';
import type { Plan } from './plans';
import type { EncryptedSecret } from './secrets';
import type { PolicyInput } from '../../workers/api';

/** Where a repository lives, minus anything secret (S3 keys / presign URLs are in `credentials`). */
export type StoredLocation =
  | { kind: 'opfs'; name: string }
  | { kind: 'folder'; name: string; handle: FileSystemDirectoryHandle }
  | { kind: 's3'; endpoint: string; region: string; bucket: string; prefix: string; pathStyle: boolean; authType: 'keys' | 'presign' };

export interface RememberedRepo {
  id: string;
  label: string;
  location: StoredLocation;
  /** Encrypted S3 credentials, only when the user ticked "remember the keys". */
  credentials?: EncryptedSecret;
  /** The repository's own ID (config), once it has been opened. */
  repoId?: string;
  /** The engine keeps this repository's master key on the device ("stay unlocked"). */
  autoUnlock?: boolean;
  lastUsed: number;
  /** The rules of its Retention page: restic's forget options, and whether only this browser's snapshots. */
  retention?: { policy: PolicyInput; thisHostOnly: boolean };
}

export interface RememberedFolder {
  id: string;
  name: string;
  handle: FileSystemDirectoryHandle;
  lastUsed: number;
  tags?: string[];
  excludes?: string[];
}

interface CairnUiDB extends DBSchema {
  repos: { key: string; value: RememberedRepo };
  folders: { key: string; value: RememberedFolder };
  prefs: { key: string; value: unknown };
  /** Since version 2. */
  plans: { key: string; value: Plan; indexes: { byRepo: string } };
  /** Since version 2: newest found through `byStart`. */
  history: { key: string; value: HistoryRecord; indexes: { byStart: number; byRepo: [string, number] } };
}

const DB_NAME = 'cairn-ui';
const DB_VERSION = 2;
/** The history keeps this many operations; older ones go as new ones come. */
const HISTORY_LIMIT = 2000;

let dbPromise: Promise<IDBPDatabase<CairnUiDB>> | undefined;

function db(): Promise<IDBPDatabase<CairnUiDB>> {
  dbPromise ??= new Promise<IDBPDatabase<CairnUiDB>>((resolve, reject) => {
    openDB<CairnUiDB>(DB_NAME, DB_VERSION, {
      upgrade(d, oldVersion) {
        // Each step brings a database of the version before up by one; data already kept stays.
        if (oldVersion < 1) {
          d.createObjectStore('repos', { keyPath: 'id' });
          d.createObjectStore('folders', { keyPath: 'id' });
          d.createObjectStore('prefs');
        }
        if (oldVersion < 2) {
          d.createObjectStore('plans', { keyPath: 'id' }).createIndex('byRepo', 'repo');
          const h = d.createObjectStore('history', { keyPath: 'id' });
          h.createIndex('byStart', 'start');
          h.createIndex('byRepo', ['repo', 'start']);
        }
      },
      // A tab of an older version holds the database at its version: say so instead of waiting.
      blocked() {
        dbPromise = undefined;
        reject({ code: 'CACHE_BLOCKED', message: 'another tab holds this device’s Cairn database at an older version', retryable: true });
      },
      // A newer version wants to upgrade it: let go (this tab reloads into that version later).
      blocking() {
        void dbPromise?.then((d) => d.close());
        dbPromise = undefined;
      },
      terminated() {
        dbPromise = undefined;
      },
    }).then(resolve, reject);
  });
  return dbPromise;
}

const newest = <T extends { lastUsed: number }>(a: T, b: T) => b.lastUsed - a.lastUsed;

export async function listRepos(): Promise<RememberedRepo[]> {
  return (await (await db()).getAll('repos')).sort(newest);
}

export async function putRepo(repo: RememberedRepo): Promise<void> {
  await (await db()).put('repos', repo);
}

export async function deleteRepo(id: string): Promise<void> {
  await (await db()).delete('repos', id);
}

export async function touchRepo(id: string, repoId?: string): Promise<void> {
  const d = await db();
  const tx = d.transaction('repos', 'readwrite');
  const r = await tx.store.get(id);
  if (r) await tx.store.put({ ...r, lastUsed: Date.now(), repoId: repoId ?? r.repoId });
  await tx.done;
}

export async function listFolders(): Promise<RememberedFolder[]> {
  return (await (await db()).getAll('folders')).sort(newest);
}

/** Remembers a picked folder; the same folder picked again updates its entry instead. */
export async function rememberFolder(handle: FileSystemDirectoryHandle, extra: Pick<RememberedFolder, 'tags' | 'excludes'> = {}): Promise<RememberedFolder> {
  const d = await db();
  for (const f of await d.getAll('folders')) {
    if (await f.handle.isSameEntry(handle)) {
      const updated = { ...f, ...extra, handle, name: handle.name, lastUsed: Date.now() };
      await d.put('folders', updated);
      return updated;
    }
  }
  const folder: RememberedFolder = { id: crypto.randomUUID(), name: handle.name, handle, lastUsed: Date.now(), ...extra };
  await d.put('folders', folder);
  return folder;
}

export async function forgetFolder(id: string): Promise<void> {
  await (await db()).delete('folders', id);
}

export async function getPref<T>(key: string): Promise<T | undefined> {
  return (await (await db()).get('prefs', key)) as T | undefined;
}

export async function setPref(key: string, value: unknown): Promise<void> {
  await (await db()).put('prefs', value, key);
}

export async function listPlans(): Promise<Plan[]> {
  return (await (await db()).getAll('plans')).sort((a, b) => a.createdAt - b.createdAt);
}

export async function putPlan(plan: Plan): Promise<void> {
  await (await db()).put('plans', plan);
}

/** Changes a kept plan in one transaction (a run's result must not undo an edit made meanwhile). */
export async function updatePlan(id: string, change: (p: Plan) => Plan): Promise<Plan | undefined> {
  const tx = (await db()).transaction('plans', 'readwrite');
  const p = await tx.store.get(id);
  const updated = p && change(p);
  if (updated) await tx.store.put(updated);
  await tx.done;
  return updated;
}

export async function deletePlan(id: string): Promise<void> {
  await (await db()).delete('plans', id);
}

/** Adds an operation to the history, dropping the oldest beyond HISTORY_LIMIT. */
export async function addHistory(record: HistoryRecord): Promise<void> {
  const tx = (await db()).transaction('history', 'readwrite');
  await tx.store.put(record);
  let extra = (await tx.store.count()) - HISTORY_LIMIT;
  if (extra > 0) {
    let cursor = await tx.store.index('byStart').openCursor();
    while (cursor && extra-- > 0) {
      await cursor.delete();
      cursor = await cursor.continue();
    }
  }
  await tx.done;
}

/** Every kept operation, newest first. */
export async function listHistory(): Promise<HistoryRecord[]> {
  return (await (await db()).getAllFromIndex('history', 'byStart')).reverse();
}
