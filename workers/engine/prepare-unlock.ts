// An unlock's scrypt started early: the page sends the password as soon as the user gives it,
// while it still decrypts the bucket's keys with it (PBKDF2) and before the engine has listed and
// fetched the key files. The key file that last opened this location is in the offline cache;
// its derivation starts now and the open takes the result (../prepared-derivations.ts).

import { base64Decode } from '../../core/crypto/base64';
import { parseKeyFile, userKeyDerivation } from '../../core/repository/keyfile';
import * as db from '../cache/db';
import { prepareScrypt } from '../kdf';

/** Starts the derivation for `locKey`'s last key with `password`; nothing cached, nothing started. */
export async function prepareUnlock(locKey: string, password: string): Promise<void> {
  if (!password) return;
  const rec = await db.getLocationRecord(locKey).catch(() => undefined);
  if (!rec?.keyId) return;
  const bytes = await db.getObject(rec.repoId, 'keys', rec.keyId).catch(() => undefined);
  if (!bytes) return;
  try {
    const j = parseKeyFile(bytes, rec.keyId);
    prepareScrypt(userKeyDerivation(password, base64Decode(j.salt), j));
  } catch {
    // a damaged cached key file: the open reads the stored one and names what is wrong
  }
}
