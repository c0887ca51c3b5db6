// Key files (restic internal/repository/key.go, docs/restic-format.md §3): plain JSON holding
// scrypt parameters, a 64-byte salt and the master key sealed with the password-derived key.
// The file's name is the SHA-256 of its exact bytes.

import { CairnError, isNotFound } from '../errors';
import { base64Decode, base64Encode } from '../crypto/base64';
import { Key } from '../crypto/keys';
import { open, seal } from '../crypto/seal';
import { primitives } from '../crypto/primitives';
import { hashID, type ID } from '../id';
import type { Backend } from '../backend/backend';
import { DEFAULT_KDF, validateKdfParams, type KdfParams } from './kdf-params';

export { DEFAULT_KDF, type KdfParams } from './kdf-params';

const SALT_SIZE = 64;
/** Key files larger than this are not read (restic's are ~450 bytes). */
const MAX_KEY_FILE = 64 * 1024;

export interface KeyFileJSON {
  created: string;
  username: string;
  hostname: string;
  kdf: string;
  N: number;
  r: number;
  p: number;
  salt: string;
  data: string;
}

export interface KeyFileInfo {
  id: ID;
  created: string;
  username: string;
  hostname: string;
  params: KdfParams;
}

export interface KeyOwner {
  username: string;
  hostname: string;
  /** RFC 3339 creation time; defaults to now. */
  created?: string;
}

export function parseKeyFile(bytes: Uint8Array, id: string): KeyFileJSON {
  const bad = (msg: string, cause?: unknown) => new CairnError('BAD_KEY_FILE', `key ${id.slice(0, 8)}: ${msg}`, { cause, detail: { key: id } });
  let j: Partial<KeyFileJSON>;
  try {
    j = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw bad('not valid JSON (truncated or corrupt key file)', e);
  }
  if (!j || typeof j !== 'object') throw bad('not a JSON object');
  if (j.kdf !== 'scrypt') throw bad(`unsupported KDF ${JSON.stringify(j.kdf)} (only scrypt)`);
  if (typeof j.salt !== 'string' || typeof j.data !== 'string') throw bad('missing salt or data');
  validateKdfParams({ N: j.N as number, r: j.r as number, p: j.p as number }, id);
  return j as KeyFileJSON;
}

/** The scrypt call that stretches `password` into the user key of a key file with `salt` and `p`. */
export interface UserKeyDerivation {
  password: Uint8Array;
  salt: Uint8Array;
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

export function userKeyDerivation(password: string, salt: Uint8Array, p: KdfParams): UserKeyDerivation {
  return { password: new TextEncoder().encode(password), salt, N: p.N, r: p.r, p: p.p, dkLen: 64 };
}

async function deriveUserKey(password: string, salt: Uint8Array, params: KdfParams): Promise<Key> {
  const d = userKeyDerivation(password, salt, params);
  return Key.fromKdfOutput(await primitives().scrypt(d.password, d.salt, d.N, d.r, d.p, d.dkLen));
}

/** Opens one key file's JSON with `password`; throws WRONG_PASSWORD if the MAC fails. */
export async function openKeyFile(j: KeyFileJSON, password: string, id: string): Promise<Key> {
  let salt: Uint8Array, data: Uint8Array;
  try {
    salt = base64Decode(j.salt);
    data = base64Decode(j.data);
  } catch (e) {
    throw new CairnError('BAD_KEY_FILE', `key ${id.slice(0, 8)}: salt or data is not base64`, { cause: e, detail: { key: id } });
  }
  if (salt.length !== SALT_SIZE)
    throw new CairnError('BAD_KEY_FILE', `key ${id.slice(0, 8)}: salt must be ${SALT_SIZE} bytes, not ${salt.length}`, { detail: { key: id } });
  const userKey = await deriveUserKey(password, salt, { N: j.N, r: j.r, p: j.p });
  let plain: Uint8Array;
  try {
    plain = await open(userKey, data);
  } catch {
    throw new CairnError('WRONG_PASSWORD', 'wrong password', { detail: { key: id } });
  }
  try {
    return Key.fromJSON(JSON.parse(new TextDecoder().decode(plain)));
  } catch (e) {
    throw new CairnError('BAD_KEY_FILE', `key ${id.slice(0, 8)}: master key is malformed`, { cause: e, detail: { key: id } });
  }
}

/** Writes a new key file wrapping `master` under `password`; returns its ID. */
export async function addKey(backend: Backend, master: Key, password: string, owner: KeyOwner, params: KdfParams = DEFAULT_KDF): Promise<ID> {
  validateKdfParams(params, 'new');
  const salt = primitives().randomBytes(SALT_SIZE);
  const userKey = await deriveUserKey(password, salt, params);
  const sealed = await seal(userKey, new TextEncoder().encode(JSON.stringify(master.toJSON())));
  const j: KeyFileJSON = {
    created: owner.created ?? new Date().toISOString(),
    username: owner.username,
    hostname: owner.hostname,
    kdf: 'scrypt',
    N: params.N,
    r: params.r,
    p: params.p,
    salt: base64Encode(salt),
    data: base64Encode(sealed),
  };
  const bytes = new TextEncoder().encode(JSON.stringify(j));
  const id = await hashID(bytes);
  await backend.save({ type: 'keys', name: id }, bytes);
  return id;
}

export interface FoundKey {
  id: ID;
  key: Key;
}

/**
 * Finds the key file that `password` opens (restic SearchKey): the hinted one first, then
 * the others. Distinguishes "no key matched" (WRONG_PASSWORD) from "the only keys are
 * unreadable" (BAD_KEY_FILE) and "no keys at all" (NO_KEY).
 */
export async function searchKey(backend: Backend, password: string, opts: { keyHint?: string; signal?: AbortSignal } = {}): Promise<FoundKey> {
  const ids: ID[] = [];
  const broken: CairnError[] = [];
  for await (const fi of backend.list('keys', { signal: opts.signal })) {
    // A key file is some 450 bytes: a huge one is not read at all (it could exhaust memory).
    if (fi.size > MAX_KEY_FILE)
      broken.push(new CairnError('BAD_KEY_FILE', `key ${fi.name.slice(0, 8)}: ${fi.size} bytes, not a key file`, { detail: { key: fi.name } }));
    else ids.push(fi.name);
  }
  if (ids.length === 0 && broken.length === 0) throw new CairnError('NO_KEY', 'repository has no key files', { op: 'open' });
  if (opts.keyHint) {
    const i = ids.findIndex((id) => id.startsWith(opts.keyHint!));
    if (i > 0) ids.unshift(...ids.splice(i, 1));
  }
  let wrong = 0;
  for (const id of ids) {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await backend.load({ type: 'keys', name: id }, { signal: opts.signal });
      return { id, key: await openKeyFile(parseKeyFile(bytes, id), password, id) };
    } catch (e) {
      if (isNotFound(e)) continue; // removed while we listed
      if (!(e instanceof CairnError) || (e.code !== 'WRONG_PASSWORD' && e.code !== 'BAD_KEY_FILE')) throw e;
      // A key file is named by its hash: one that no longer matches is damaged, not just another password's.
      if (bytes && (await hashID(bytes)) !== id) broken.push(damagedKey(id, e));
      else if (e.code === 'WRONG_PASSWORD') wrong++;
      else broken.push(e);
    }
  }
  if (wrong === 0 && broken.length > 0) throw broken[0]!;
  const note = broken.length ? ` (${broken.length} unreadable key file(s) skipped: ${broken.map((b) => b.message).join('; ')})` : '';
  throw new CairnError('WRONG_PASSWORD', `wrong password or no key found${note}`, { op: 'open' });
}

function damagedKey(id: ID, e: CairnError): CairnError {
  const what = e.code === 'WRONG_PASSWORD' ? `key ${id.slice(0, 8)}: does not open` : e.message;
  return new CairnError('BAD_KEY_FILE', `${what}, and its content no longer matches its name: the file is damaged`, { cause: e, detail: { key: id } });
}

export async function readKeyInfo(backend: Backend, id: ID): Promise<KeyFileInfo> {
  const j = parseKeyFile(await backend.load({ type: 'keys', name: id }), id);
  return { id, created: j.created, username: j.username, hostname: j.hostname, params: { N: j.N, r: j.r, p: j.p } };
}
