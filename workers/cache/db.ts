// The engine's IndexedDB (via idb, one module owns it): the offline metadata cache and the
// engine's own small records. Objects are stored exactly as fetched — ciphertext for config,
// snapshots, indexes and tree blobs, and the key files (whose master key is itself sealed
// under the password) — never a decrypted byte. Keys are [repository ID, type, name].
//
//   objects    [repo, type, name] → sealed bytes        type: config|keys|snapshots|index|tree,
//                                   and search's own lists|outlines (../engine/name-index.ts),
//                                   sealed with the master key
//   listings   [repo, type]       → names and sizes from the last successful listing
//   locations  locationKey        → repository ID last seen there (for offline unlock)
//   remembered locationKey        → master key (and S3 keys) sealed with a non-extractable key
//   views      locationKey        → the last folder listing shown, sealed with its own
//                                   non-extractable key; lives and dies with `remembered`
//                                   (./last-view.ts). The page reads this store, never the others.
//   meta       name               → small values (this browser profile's client ID), and the
//                                   packs a backup stored but no index lists yet:
//                                   `pending-pack:<repo>:<engine>:<pack>` (../engine/pack-journal.ts)

import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import { EngineFault } from '../errors';

export type CachedType = 'config' | 'keys' | 'snapshots' | 'index' | 'tree' | 'lists' | 'outlines';

export interface CachedObject {
  repo: string;
  type: CachedType;
  name: string;
  bytes: Uint8Array;
  at: number;
}

export interface Listing {
  repo: string;
  type: CachedType;
  entries: { name: string; size: number }[];
  at: number;
}

export interface RememberedRecord {
  locationKey: string;
  repoId: string;
  /** AES-GCM key created non-extractable: its bytes never exist outside the browser's crypto. */
  wrapKey: CryptoKey;
  iv: Uint8Array;
  /** AES-GCM(JSON {master, keyId, s3Auth?}). */
  sealed: ArrayBuffer;
  at: number;
}

export interface ViewRecord {
  locationKey: string;
  /** The `at` of the remembered record it was kept under. */
  at: number;
  /** AES-GCM key created non-extractable, for this record only (not the master key's). */
  key: CryptoKey;
  iv: Uint8Array;
  /** AES-GCM(JSON LastView). */
  sealed: ArrayBuffer;
}

interface CairnCacheDB extends DBSchema {
  objects: { key: [string, string, string]; value: CachedObject; indexes: { byRepo: string } };
  listings: { key: [string, string]; value: Listing };
  /** keyId: the key file that last opened the location (a file name, no secret): tried first next time. */
  locations: { key: string; value: { locationKey: string; repoId: string; keyId?: string; at: number } };
  remembered: { key: string; value: RememberedRecord };
  views: { key: string; value: ViewRecord };
  meta: { key: string; value: { name: string; value: string } };
}

const DB_NAME = 'cairn-engine';
const DB_VERSION = 2;
let db: Promise<IDBPDatabase<CairnCacheDB>> | undefined;

function open(onBlocked?: () => void): Promise<IDBPDatabase<CairnCacheDB>> {
  return openDB<CairnCacheDB>(DB_NAME, DB_VERSION, {
    blocked: onBlocked,
    upgrade(d, old, _new, tx) {
      if (old < 1) {
        const objects = d.createObjectStore('objects', { keyPath: ['repo', 'type', 'name'] });
        objects.createIndex('byRepo', 'repo');
        d.createObjectStore('listings', { keyPath: ['repo', 'type'] });
        d.createObjectStore('locations', { keyPath: 'locationKey' });
        d.createObjectStore('remembered', { keyPath: 'locationKey' });
        d.createObjectStore('meta', { keyPath: 'name' });
      }
      if (old < 2) {
        // Version 1 kept the listing on the remembered record, under the master key's own
        // wrapping key: dropped (the next listing shown is kept in `views`).
        d.createObjectStore('views', { keyPath: 'locationKey' });
        if (old >= 1) {
          void (async () => {
            for (let c = await tx.objectStore('remembered').openCursor(); c; c = await c.continue()) {
              const { view, ...rest } = c.value as RememberedRecord & { view?: unknown };
              if (view !== undefined) await c.update(rest);
            }
          })();
        }
      }
    },
  });
}

/**
 * Set while the open waits for another tab to let go of an older version of the database:
 * that tab runs an older app (without the `versionchange` handler below) and the upgrade
 * cannot start until it is closed or reloaded. Callers then fail at once with CACHE_BLOCKED
 * instead of waiting on the open; the open itself goes on and ends the wait when it can.
 */
let blocked: EngineFault | undefined;
/** Callers waiting on the open, failed as soon as it turns out to be blocked. */
const waiting = new Set<(e: EngineFault) => void>();

function database(): Promise<IDBPDatabase<CairnCacheDB>> {
  if (!db) {
    blocked = undefined;
    db = open(() => {
      blocked = new EngineFault('CACHE_BLOCKED', 'another tab runs an older version of Cairn and holds this device’s saved data; close or reload it', {
        retryable: true,
      });
      for (const fail of waiting) fail(blocked);
      waiting.clear();
    })
      .then((d) => {
        blocked = undefined;
        // A newer version of the app (another tab) wants to upgrade: let it; reopen on next use.
        d.addEventListener('versionchange', () => {
          d.close();
          db = undefined;
        });
        return d;
      })
      .catch((e) => {
        blocked = undefined;
        db = undefined;
        throw e;
      });
  }
  if (blocked) return Promise.reject(blocked);
  const opening = db;
  return new Promise((resolve, reject) => {
    waiting.add(reject);
    opening.then(resolve, reject).finally(() => waiting.delete(reject));
  });
}

export async function getObject(repo: string, type: CachedType, name: string): Promise<Uint8Array | undefined> {
  return (await (await database()).get('objects', [repo, type, name]))?.bytes;
}

export async function putObject(repo: string, type: CachedType, name: string, bytes: Uint8Array): Promise<void> {
  await (await database()).put('objects', { repo, type, name, bytes: owned(bytes), at: Date.now() });
}

/** A view into a larger buffer would store the whole buffer: copy it out. */
function owned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

/** Several objects in one transaction (a backup's new trees): one commit instead of one each. */
export async function putObjects(repo: string, type: CachedType, objects: readonly { name: string; bytes: Uint8Array }[]): Promise<void> {
  if (objects.length === 0) return;
  const tx = (await database()).transaction('objects', 'readwrite');
  const at = Date.now();
  for (const { name, bytes } of objects) void tx.store.put({ repo, type, name, bytes: owned(bytes), at });
  await tx.done;
}

export async function deleteObject(repo: string, type: CachedType, name: string): Promise<void> {
  await (await database()).delete('objects', [repo, type, name]);
}

export async function getListing(repo: string, type: CachedType): Promise<Listing['entries'] | undefined> {
  return (await (await database()).get('listings', [repo, type]))?.entries;
}

export async function putListing(repo: string, type: CachedType, entries: Listing['entries']): Promise<void> {
  await (await database()).put('listings', { repo, type, entries, at: Date.now() });
}

/** Adds or removes one name in a stored listing (after our own save/remove). */
export async function editListing(repo: string, type: CachedType, add?: { name: string; size: number }, remove?: string): Promise<void> {
  const d = await database();
  const tx = d.transaction('listings', 'readwrite');
  const cur = await tx.store.get([repo, type]);
  if (cur) {
    let entries = cur.entries.filter((e) => e.name !== add?.name && e.name !== remove);
    if (add) entries = [...entries, add];
    await tx.store.put({ ...cur, entries, at: Date.now() });
  }
  await tx.done;
}

export async function getLocation(locationKey: string): Promise<string | undefined> {
  return (await (await database()).get('locations', locationKey))?.repoId;
}

export async function getLocationRecord(locationKey: string): Promise<{ repoId: string; keyId?: string } | undefined> {
  return (await database()).get('locations', locationKey);
}

/** Links a location to its repository; without `keyId`, the key noted for that same repository stays. */
export async function putLocation(locationKey: string, repoId: string, keyId?: string): Promise<void> {
  const tx = (await database()).transaction('locations', 'readwrite');
  const cur = await tx.store.get(locationKey);
  const key = keyId ?? (cur?.repoId === repoId ? cur.keyId : undefined);
  await tx.store.put({ locationKey, repoId, ...(key ? { keyId: key } : {}), at: Date.now() });
  await tx.done;
}

/** Deletes everything cached for a repository (and the location → repository link). */
export async function clearRepository(repo: string, locationKey?: string): Promise<void> {
  const d = await database();
  const tx = d.transaction(['objects', 'listings', 'locations', 'meta'], 'readwrite');
  for await (const c of tx.objectStore('objects').index('byRepo').iterate(repo)) await c.delete();
  for await (const c of tx.objectStore('listings').iterate(IDBKeyRange.bound([repo], [repo, []]))) await c.delete();
  await tx.objectStore('meta').delete(IDBKeyRange.bound(`${COMPLETE}${repo}:`, `${COMPLETE}${repo}:\uffff`));
  if (locationKey) await tx.objectStore('locations').delete(locationKey);
  await tx.done;
}

export async function getRemembered(locationKey: string): Promise<RememberedRecord | undefined> {
  return (await database()).get('remembered', locationKey);
}

/** Replaces the remembered record; a listing kept under the one before goes with it. */
export async function putRemembered(r: RememberedRecord): Promise<void> {
  const tx = (await database()).transaction(['remembered', 'views'], 'readwrite');
  await Promise.all([tx.objectStore('remembered').put(r), tx.objectStore('views').delete(r.locationKey), tx.done]);
}

/** Keeps `view` if the remembered record is still the one made at `view.at`. */
export async function putView(view: ViewRecord): Promise<boolean> {
  const tx = (await database()).transaction(['remembered', 'views'], 'readwrite');
  const r = await tx.objectStore('remembered').get(view.locationKey);
  if (r?.at !== view.at) return false;
  await tx.objectStore('views').put(view);
  await tx.done;
  return true;
}

export async function getView(locationKey: string): Promise<ViewRecord | undefined> {
  return (await database()).get('views', locationKey);
}

/**
 * The page's one read at start-up: opens the database at whatever version it has, reads the
 * kept listing's record and closes again at once, so the page never holds a connection (nor
 * reads another store). It never creates or upgrades the database: an open that asked for a
 * version would queue behind (and ahead of) the engine's, and wait with it on any tab of an
 * older app still holding the old version, where the engine's own open is the one that must
 * hear of it (CACHE_BLOCKED). No database, or one without `views` (version 1): nothing kept.
 */
export async function readViewOnce(locationKey: string): Promise<ViewRecord | undefined> {
  let d: IDBPDatabase<CairnCacheDB>;
  try {
    d = await openDB<CairnCacheDB>(DB_NAME, undefined, {
      upgrade(_d, _old, _new, tx) {
        tx.abort(); // only when there is no database yet: leave its making to the engine
      },
    });
  } catch {
    return undefined;
  }
  try {
    if (!d.objectStoreNames.contains('views')) return undefined;
    return await d.get('views', locationKey);
  } finally {
    d.close();
  }
}

export async function deleteRemembered(locationKey: string): Promise<void> {
  const tx = (await database()).transaction(['remembered', 'views'], 'readwrite');
  await Promise.all([tx.objectStore('remembered').delete(locationKey), tx.objectStore('views').delete(locationKey), tx.done]);
}

/** A random ID for this browser profile, made once: the lock hostname and snapshot host. */
export async function clientId(): Promise<string> {
  const d = await database();
  const tx = d.transaction('meta', 'readwrite');
  let rec = await tx.store.get('clientId');
  if (!rec) {
    rec = { name: 'clientId', value: crypto.randomUUID() };
    await tx.store.put(rec);
  }
  await tx.done;
  return rec.value;
}

const COMPLETE = 'offline-complete:';

/** The snapshots of `repo` whose trees are all in the offline cache (workers/engine/offline-fill.ts). */
export async function completeSnapshots(repo: string): Promise<string[]> {
  const prefix = `${COMPLETE}${repo}:`;
  const keys = await (await database()).getAllKeys('meta', IDBKeyRange.bound(prefix, prefix + '\uffff'));
  return keys.map((k) => k.slice(prefix.length));
}

export async function putCompleteSnapshot(repo: string, snapshot: string): Promise<void> {
  await (await database()).put('meta', { name: `${COMPLETE}${repo}:${snapshot}`, value: '' });
}

const PENDING = 'pending-pack:';

/** Notes that engine `engine` stored pack `pack` in repository `repo` (no index lists it yet). */
export async function putPendingPack(repo: string, engine: string, pack: string): Promise<void> {
  await (await database()).put('meta', { name: `${PENDING}${repo}:${engine}:${pack}`, value: '' });
}

/** Forgets the notes on these packs (an index lists them now). */
export async function deletePendingPacks(repo: string, engine: string, packs: readonly string[]): Promise<void> {
  const tx = (await database()).transaction('meta', 'readwrite');
  await Promise.all([...packs.map((p) => tx.store.delete(`${PENDING}${repo}:${engine}:${p}`)), tx.done]);
}

/** The packs noted for repository `repo`, with the engine that stored each. */
export async function pendingPacks(repo: string): Promise<{ engine: string; pack: string }[]> {
  const prefix = `${PENDING}${repo}:`;
  const keys = await (await database()).getAllKeys('meta', IDBKeyRange.bound(prefix, prefix + '\uffff'));
  return keys.map((k) => {
    const [engine = '', pack = ''] = k.slice(prefix.length).split(':');
    return { engine, pack };
  });
}

/** The names of every cached object of a type for a repository (the tree cache's blob IDs). */
export async function objectNames(repo: string, type: CachedType): Promise<string[]> {
  const keys = await (await database()).getAllKeys('objects', IDBKeyRange.bound([repo, type], [repo, type, []]));
  return keys.map((k) => k[2]);
}

/** Every cached object of a type for a repository, in one request. */
export async function allObjects(repo: string, type: CachedType): Promise<{ name: string; bytes: Uint8Array }[]> {
  const all = await (await database()).getAll('objects', IDBKeyRange.bound([repo, type], [repo, type, []]));
  return all.map((o) => ({ name: o.name, bytes: o.bytes }));
}

/** Drops cached objects of a type by name, in one transaction. */
export async function deleteObjects(repo: string, type: CachedType, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const tx = (await database()).transaction('objects', 'readwrite');
  for (const name of names) void tx.store.delete([repo, type, name]);
  await tx.done;
}
