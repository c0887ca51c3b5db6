// The repository's keys (restic's `key list|add|passwd|remove`): key files as restic writes them
// (core/repository/keyfile.ts), with restic's locks — a non-exclusive one to add a key, an
// exclusive one to replace or remove one. New keys use newKeyKdf()'s scrypt parameters (the KDF
// runs in the kdf worker). A password is proven the way restic proves it: by opening a key file
// that holds this repository's master key.

import { mapLimit } from '../../core/concurrency/concurrency';
import { CairnError } from '../../core/errors';
import { GoTime } from '../../core/data/go-time';
import { addKey, readKeyInfo, searchKey, type KeyFileInfo } from '../../core/repository/keyfile';
import { newKeyKdf } from '../new-key-kdf';
import { Lock } from '../../core/repository/lock';
import type { Key } from '../../core/crypto/keys';
import type { KeyView, NewKeyOptions } from '../tools-api';
import { remember } from '../cache/remembered';
import type { Owner } from './open';
import { engineOwner } from './pack-journal';
import type { Session } from './session';

function keyView(k: KeyFileInfo, currentId: string): KeyView {
  return { id: k.id, shortId: k.id.slice(0, 8), hostname: k.hostname, username: k.username, created: k.created, current: k.id === currentId, kdf: k.params };
}

/** Every key file, oldest first (restic's `key list`). Unreadable key files are left out. */
export async function listKeys(s: Session, signal?: AbortSignal): Promise<KeyView[]> {
  const ids = await s.repo.listIDs('keys', signal);
  const infos: KeyFileInfo[] = [];
  await mapLimit(ids, 8, async (id) => {
    try {
      infos.push(await readKeyInfo(s.backend, id));
    } catch {
      // a damaged key file opens nothing; check and `key list` in restic show it
    }
  });
  return infos.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id)).map((k) => keyView(k, s.repo.keyID));
}

function sameKey(a: Key, b: Key): boolean {
  const eq = (x: Uint8Array, y: Uint8Array) => x.length === y.length && x.every((v, i) => v === y[i]);
  return eq(a.encrypt, b.encrypt) && eq(a.macK, b.macK) && eq(a.macR, b.macR);
}

/** Proves `password` opens this repository (a key file holding the session's master key). */
export async function verifyPassword(s: Session, password: string, signal?: AbortSignal): Promise<string> {
  if (!password) throw new CairnError('NO_PASSWORD', 'type the repository password');
  const found = await searchKey(s.backend, password, { keyHint: s.repo.keyID, signal });
  if (!sameKey(found.key, s.repo.key)) throw new CairnError('WRONG_PASSWORD', 'that password opens a key of another repository');
  return found.id;
}

async function lockFor<T>(s: Session, owner: Owner, exclusive: boolean, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  s.requireOnline('Changing keys');
  const lock = await Lock.acquire(s.repo, await engineOwner(owner.hostname, owner.username), exclusive, signal);
  try {
    return await fn();
  } finally {
    await lock.release().catch(() => {});
  }
}

function who(owner: Owner, opts: NewKeyOptions): { username: string; hostname: string; created: string } {
  return {
    username: opts.username?.trim() || owner.username,
    hostname: opts.hostname?.trim() || owner.hostname,
    created: GoTime.fromDate(new Date()).format(),
  };
}

/** A new key file for `password` wrapping the session's master key. */
export async function addRepositoryKey(s: Session, password: string, owner: Owner, opts: NewKeyOptions = {}, signal?: AbortSignal): Promise<KeyView> {
  s.requireAccess('maintenance', 'adding a key');
  if (!password) throw new CairnError('NO_PASSWORD', 'a key needs a password');
  const w = who(owner, opts);
  const id = await lockFor(s, owner, false, signal, () => addKey(s.backend, s.repo.key, password, w, newKeyKdf()));
  return keyView({ id, ...w, params: newKeyKdf() }, s.repo.keyID);
}

/** restic's `key passwd`: a key for the new password, then the one in use removed. */
export async function changePassword(s: Session, current: string, next: string, owner: Owner, signal?: AbortSignal): Promise<KeyView> {
  s.requireAccess('maintenance', 'changing the password');
  if (!next) throw new CairnError('NO_PASSWORD', 'an empty password is not allowed');
  const old = await verifyPassword(s, current, signal);
  const w = who(owner, {});
  const id = await lockFor(s, owner, true, signal, async () => {
    const added = await addKey(s.backend, s.repo.key, next, w, newKeyKdf());
    await s.backend.remove({ type: 'keys', name: old });
    return added;
  });
  s.repo.keyID = id;
  if (s.remembered) await remember(s.locationKey, s.repo.config.id, s.repo.key, id, s.loc.kind === 's3' ? s.loc.auth : undefined).catch(() => {});
  return keyView({ id, ...w, params: newKeyKdf() }, id);
}

/** Removes a key file (by ID or unique prefix); never the last one, the one in use only when asked. */
export async function removeRepositoryKey(s: Session, ref: string, owner: Owner, opts: { allowCurrent?: boolean } = {}, signal?: AbortSignal): Promise<void> {
  s.requireAccess('maintenance', 'removing a key');
  await lockFor(s, owner, true, signal, async () => {
    const ids = await s.repo.listIDs('keys', signal);
    const hits = ids.filter((id) => id.startsWith(ref));
    if (hits.length !== 1) throw new CairnError(hits.length ? 'AMBIGUOUS_ID' : 'NOT_FOUND', `no unique key matching ${ref}`);
    const id = hits[0]!;
    if (ids.length === 1) throw new CairnError('LAST_KEY', `key ${id.slice(0, 8)} is the repository's only key`, { detail: { key: id } });
    if (id === s.repo.keyID && !opts.allowCurrent)
      throw new CairnError('KEY_IN_USE', `key ${id.slice(0, 8)} is the one this session opened with`, { detail: { key: id } });
    await s.backend.remove({ type: 'keys', name: id });
  });
}
