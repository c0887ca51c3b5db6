// Repositories made by the real restic for interop tests, made cheap to open: restic calibrates
// scrypt to ~0.5 s of CPU per open (2 s on a busy test machine), so right after `restic init`
// the key file is swapped for one with test parameters wrapping the same master key. Config,
// master key and chunker polynomial stay restic's own.

import { addKey } from '../../core/repository/keyfile';
import { TEST_KDF } from './test-kdf';
import { openLocal } from './engine';
import { ok, restic, TEST_ENV } from './cli';

/** `restic init` at `dir`, then its key replaced by a cheap one for the same password. */
export async function resticInit(dir: string, password = TEST_ENV.RESTIC_PASSWORD): Promise<void> {
  await ok(restic(['init', '-r', dir], { env: { RESTIC_PASSWORD: password } }));
  const repo = await openLocal(dir, password);
  await addKey(repo.backend, repo.key, password, { username: 'restic-test', hostname: 'test' }, TEST_KDF);
  await repo.backend.remove({ type: 'keys', name: repo.keyID });
}
