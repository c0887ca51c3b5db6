// Creating, opening and unlocking repositories. Bucket repositories get the offline
// metadata cache (IndexedDB) in front of their backend and their tree blobs cached there;
// OPFS and picked folders are local already and are read directly.

import type { Backend } from '../../core/backend/backend';
import { CairnError } from '../../core/errors';
import { open as openSealed } from '../../core/crypto/seal';
import type { Key } from '../../core/crypto/keys';
import type { KdfParams } from '../../core/repository/keyfile';
import { newKeyKdf } from '../new-key-kdf';
import { addKey } from '../../core/repository/keyfile';
import { GoTime } from '../../core/data/go-time';
import { Lock } from '../../core/repository/lock';
import { openWithMasterKey, parseMasterKey } from '../../core/repository/master-key';
import { decodeConfig } from '../../core/repository/config';
import { Repository } from '../../core/repository/repository';
import { decodeUnpackedPlain, parseJSON } from '../../core/repository/unpacked';
import type { OpenOptions, RepoLocation } from '../api';
import { CachedBackend } from '../cache/cached-backend';
import * as db from '../cache/db';
import { forget, recall, remember } from '../cache/remembered';
import { treeCache } from '../cache/tree-cache';
import { outlineStore } from '../cache/offline-records';
import { EngineFault } from '../errors';
import { browserOffline, isRemote, locationKey, openBackend } from '../location';
import { Session } from './session';
import { deviceFor, requireDevice } from './device';
import type { DeviceInfo } from '../../core/presign/handler';
import { engineOwner } from './pack-journal';
import { initWasm } from '../wasm';
import { prefetchSnapshots, type SnapshotPrefetch } from './snapshot-prefetch';

export interface Owner {
  hostname: string;
  username: string;
}

/** Fills in remembered S3 keys when the page asks for them. */
async function resolve(loc: RepoLocation): Promise<RepoLocation> {
  if (loc.kind !== 's3' || loc.auth.type !== 'remembered') return loc;
  const r = await recall(locationKey(loc));
  if (!r?.s3) throw new EngineFault('NOT_REMEMBERED', 'no S3 keys are remembered for this bucket; enter them again');
  return { ...loc, auth: r.s3 };
}

interface Opened {
  backend: Backend;
  cached?: CachedBackend;
  device?: DeviceInfo;
  /** The key file that last opened this location (the offline cache's note), tried first. */
  lastKeyId?: string;
}

/** The backend of a location, and who this device is at its presign endpoint (asked first: a refused token stops here). */
async function backendFor(loc: RepoLocation, offline: boolean, create: boolean): Promise<Opened> {
  const device = await deviceFor(loc, offline || browserOffline());
  const inner = await openBackend(loc, { create });
  if (!isRemote(loc)) return { backend: inner };
  const key = locationKey(loc);
  const known = await db.getLocationRecord(key).catch(() => undefined);
  const cached = new CachedBackend(inner, {
    locationKey: key,
    knownRepoId: known?.repoId,
    offline: () => offline || browserOffline(),
  });
  return { backend: cached, cached, device, lastKeyId: known?.keyId };
}

async function finish(
  loc: RepoLocation,
  repo: Repository,
  opened: Opened,
  offline: boolean,
  opts: OpenOptions & { prefetched?: SnapshotPrefetch },
): Promise<Session> {
  const { cached, device } = opened;
  const key = locationKey(loc);
  if (cached) {
    await cached.adoptRepository(repo.config.id, repo.keyID);
    repo.blobCache = treeCache(repo.config.id, cached.stats);
  }
  let remembered: boolean;
  if (opts.remember) {
    await remember(key, repo.config.id, repo.key, repo.keyID, loc.kind === 's3' ? loc.auth : undefined);
    remembered = true;
  } else remembered = (await db.getRemembered(key).catch(() => undefined))?.repoId === repo.config.id;
  const outlines = cached ? outlineStore(repo.config.id) : undefined;
  return new Session({ loc, locationKey: key, repo, cached, offline, remembered, device, outlines, prefetched: opts.prefetched });
}

export async function createRepository(loc: RepoLocation, password: string, owner: Owner, opts: OpenOptions & { kdf?: KdfParams } = {}): Promise<Session> {
  if (!password) throw new CairnError('NO_PASSWORD', 'a repository needs a password');
  const resolved = await resolve(loc);
  const opened = await backendFor(resolved, false, true);
  requireDevice(opened.device, 'write', 'creating a repository');
  const repo = await Repository.init(opened.backend, password, { owner, kdf: opts.kdf ?? newKeyKdf() });
  return finish(resolved, repo, opened, false, opts);
}

export async function openRepository(loc: RepoLocation, password: string, opts: OpenOptions = {}): Promise<Session> {
  const resolved = await resolve(loc);
  const offline = (opts.offline ?? false) && isRemote(resolved);
  const opened = await backendFor(resolved, offline, false);
  // The snapshot files are fetched while the key is derived (see ./snapshot-prefetch.ts).
  const prefetched = prefetchSnapshots(opened.backend);
  let repo: Repository;
  try {
    repo = await Repository.open(opened.backend, password, { keyHint: opened.lastKeyId });
  } catch (e) {
    prefetched.stop();
    throw e;
  }
  return finish(resolved, repo, opened, offline, { ...opts, prefetched });
}

/** Opens with the remembered master key: no password, no scrypt. */
export async function unlockRemembered(loc: RepoLocation, opts: { offline?: boolean } = {}): Promise<Session> {
  const key = locationKey(loc);
  const r = await recall(key);
  if (!r) throw new EngineFault('NOT_REMEMBERED', 'this repository is not remembered on this device');
  const resolved = loc.kind === 's3' && loc.auth.type === 'remembered' ? ({ ...loc, auth: r.s3 ?? loc.auth } as RepoLocation) : loc;
  const offline = (opts.offline ?? false) && isRemote(resolved);
  const opened = await backendFor(resolved, offline, false);
  const repo = await openWithKey(opened.backend, r.key, r.keyId);
  if (repo.config.id !== r.repoId) {
    await forget(key);
    throw new EngineFault('NOT_REMEMBERED', 'a different repository is at this location now; open it with its password');
  }
  return finish(resolved, repo, opened, offline, {});
}

async function openWithKey(backend: Backend, key: Key, keyId: string): Promise<Repository> {
  let plain: Uint8Array;
  try {
    // The config is read while zstd's WASM (started by warmUp) finishes compiling.
    const [sealed] = await Promise.all([backend.load({ type: 'config', name: '' }), initWasm()]);
    plain = await openSealed(key, sealed);
  } catch (e) {
    if (e instanceof CairnError && e.code === 'NOT_FOUND') throw new CairnError('NOT_A_REPOSITORY', `no repository at ${backend.location}`, { op: 'open' });
    if (e instanceof CairnError && e.code === 'MAC_MISMATCH')
      throw new EngineFault('NOT_REMEMBERED', 'the remembered key does not open this repository', { cause: e });
    throw e;
  }
  const config = decodeConfig(parseJSON(decodeUnpackedPlain(plain, 'config', 'BAD_CONFIG'), 'config', 'BAD_CONFIG'));
  return new Repository(backend, key, keyId, config);
}

export async function forgetRemembered(loc: RepoLocation): Promise<void> {
  await forget(locationKey(loc));
}

export async function clearCache(loc: RepoLocation): Promise<void> {
  const key = locationKey(loc);
  const repoId = await db.getLocation(key);
  await forget(key);
  if (repoId) await db.clearRepository(repoId, key);
}

/**
 * Recovery from a recovery sheet: opens the repository with its master key (restic's `cat
 * masterkey` JSON; a wrong key fails the config's MAC), writes a key file for `password` under
 * restic's non-exclusive lock, and keeps the repository open with that key.
 */
export async function recoverWithMasterKey(loc: RepoLocation, masterKey: string, password: string, owner: Owner, opts: OpenOptions = {}): Promise<Session> {
  if (!password) throw new CairnError('NO_PASSWORD', 'choose a new password');
  const key = parseMasterKey(masterKey.trim());
  const resolved = await resolve(loc);
  const opened = await backendFor(resolved, false, false);
  requireDevice(opened.device, 'maintenance', 'recovering access (it adds a key)');
  const { backend } = opened;
  await initWasm();
  const repo = await openWithMasterKey(backend, key);
  const lock = await Lock.acquire(repo, await engineOwner(owner.hostname, owner.username), false);
  try {
    repo.keyID = await addKey(backend, key, password, { ...owner, created: GoTime.fromDate(new Date()).format() }, newKeyKdf());
  } finally {
    await lock.release().catch(() => {});
  }
  return finish(resolved, repo, opened, false, opts);
}
