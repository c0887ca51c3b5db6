// An unlock's scrypt started early. When the page shows the unlock form, the KDF workers are
// started and their memory made ready for the key that last opened this location; when the user
// gives the password, its derivation starts at once, while the page still decrypts the bucket's
// keys with it (PBKDF2) and before the engine has listed and fetched the key files. The open
// then takes the result (../prepared-derivations.ts). The key file is the offline cache's copy.

import { base64Decode } from '../../core/crypto/base64';
import { parseKeyFile, userKeyDerivation, type KeyFileJSON } from '../../core/repository/keyfile';
import * as db from '../cache/db';
import { prepareScrypt, standBy } from '../kdf';

/** The cached key file that last opened `locKey`, parsed; undefined if none or damaged. */
async function lastKey(locKey: string): Promise<KeyFileJSON | undefined> {
  const rec = await db.getLocationRecord(locKey).catch(() => undefined);
  if (!rec?.keyId) return undefined;
  const bytes = await db.getObject(rec.repoId, 'keys', rec.keyId).catch(() => undefined);
  if (!bytes) return undefined;
  try {
    return parseKeyFile(bytes, rec.keyId);
  } catch {
    return undefined; // a damaged cached key file: the open reads the stored one and names what is wrong
  }
}

/** The unlock form is up for `locKey`: KDF workers stand by, sized for its last key if cached. */
export async function expectUnlock(locKey: string): Promise<void> {
  const j = await lastKey(locKey);
  standBy(j ? { N: j.N, r: j.r } : undefined);
}

/** Starts the derivation for `locKey`'s last key with `password`; nothing cached, nothing started. */
export async function prepareUnlock(locKey: string, password: string): Promise<void> {
  const j = password ? await lastKey(locKey) : undefined;
  if (!j) return;
  try {
    prepareScrypt(userKeyDerivation(password, base64Decode(j.salt), j));
  } catch {
    // salt not base64: the open names the damaged key
  }
}
