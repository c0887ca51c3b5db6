// "Remember this repository on this device": the master key (and S3 keys, if any) sealed with
// AES-GCM under a key generated non-extractable, so its bytes never exist where script could
// read them — IndexedDB stores the CryptoKey object, not key material. Opt-in only; anyone
// with this browser profile can then open the repository, which is what the user asked for.

import { Key, type MasterKeyJSON } from '../../core/crypto/keys';
import type { S3Auth } from '../api';
import * as db from './db';

interface Secret {
  master: MasterKeyJSON;
  keyId: string;
  s3?: S3Auth;
}

export async function remember(locationKey: string, repoId: string, key: Key, keyId: string, s3?: S3Auth): Promise<void> {
  const wrapKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const secret: Secret = { master: key.toJSON(), keyId, s3: s3 && s3.type !== 'remembered' ? s3 : undefined };
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, wrapKey, new TextEncoder().encode(JSON.stringify(secret)));
  await db.putRemembered({ locationKey, repoId, wrapKey, iv, sealed, at: Date.now() });
}

export async function recall(locationKey: string): Promise<{ repoId: string; key: Key; keyId: string; s3?: S3Auth } | undefined> {
  const r = await db.getRemembered(locationKey);
  if (!r) return undefined;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: r.iv as Uint8Array<ArrayBuffer> }, r.wrapKey, r.sealed);
    const s = JSON.parse(new TextDecoder().decode(plain)) as Secret;
    return { repoId: r.repoId, key: Key.fromJSON(s.master), keyId: s.keyId, s3: s.s3 };
  } catch {
    await db.deleteRemembered(locationKey);
    return undefined;
  }
}

export const forget = (locationKey: string): Promise<void> => db.deleteRemembered(locationKey);
