// Opening a repository with its master key instead of a password: the recovery path of
// `key add --from-masterkey` when every password is lost but `cat masterkey` was kept. The
// key is proven by the config it must decrypt (a wrong key fails the MAC), exactly as a
// password is proven by the key file it opens.

import { CairnError } from '../errors';
import type { Backend } from '../backend/backend';
import { Key } from '../crypto/keys';
import { open } from '../crypto/seal';
import { decodeConfig } from './config';
import { Repository } from './repository';
import { decodeUnpackedPlain, parseJSON } from './unpacked';

/** The master key in `cat masterkey`'s JSON ({"mac":{"k","r"},"encrypt"}). */
export function parseMasterKey(text: string): Key {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new CairnError('BAD_KEY_FILE', 'master key file is not JSON (expected the output of `cat masterkey`)', { cause: e });
  }
  try {
    return Key.fromJSON(j);
  } catch (e) {
    throw new CairnError('BAD_KEY_FILE', `master key file: ${(e as Error).message}`, { cause: e });
  }
}

/** The repository opened with `key`; its `keyID` is empty (no key file is in use). */
export async function openWithMasterKey(backend: Backend, key: Key, signal?: AbortSignal): Promise<Repository> {
  let sealed: Uint8Array;
  try {
    sealed = await backend.load({ type: 'config', name: '' }, { signal });
  } catch (e) {
    if (e instanceof CairnError && e.code === 'NOT_FOUND')
      throw new CairnError('NOT_A_REPOSITORY', `no repository at ${backend.location} (config file not found)`, { cause: e });
    throw e;
  }
  let plain: Uint8Array;
  try {
    plain = await open(key, sealed);
  } catch (e) {
    throw new CairnError('WRONG_PASSWORD', 'the master key does not open this repository (its config fails authentication)', { cause: e });
  }
  const config = decodeConfig(parseJSON(decodeUnpackedPlain(plain, 'config', 'BAD_CONFIG'), 'config', 'BAD_CONFIG'));
  return new Repository(backend, key, '', config);
}
