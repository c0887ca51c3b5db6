// scrypt for the engine worker, run in a throw-away worker (kdf.worker.ts) so its memory is
// released as soon as the key is derived. One spare worker is kept started (from half a second after engine start) (hash-wasm loaded,
// no KDF memory yet) so an unlock does not wait for a worker to boot.

import { CairnError } from '../core/errors';
import { primitives, setPrimitives } from '../core/crypto/primitives';
import type { KdfRequest, KdfResponse } from './kdf.worker';
import kdfWorkerUrl from './kdf.worker.ts?worker&url';
import { spawnWorker, type SpawnedWorker } from './spawn';
import { PreparedDerivations } from './prepared-derivations';
import type { UserKeyDerivation } from '../core/repository/keyfile';

let spare: SpawnedWorker | undefined;

const start = () => spawnWorker(kdfWorkerUrl, 'cairn-kdf');

function scryptInWorker(password: Uint8Array, salt: Uint8Array, N: number, r: number, p: number, dkLen: number): Promise<Uint8Array> {
  const w = spare ?? start();
  spare = undefined;
  return new Promise<Uint8Array>((resolve, reject) => {
    w.onmessage = (ev: MessageEvent<KdfResponse>) => {
      w.terminate();
      if (ev.data.ok) resolve(ev.data.key);
      else reject(new CairnError('INTERNAL', `scrypt failed: ${ev.data.message}`));
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      w.terminate();
      reject(new CairnError('INTERNAL', `scrypt worker failed: ${ev.message || 'script error'}`));
    };
    w.postMessage({ password, salt, N, r, p, dkLen } satisfies KdfRequest);
  }).finally(() => {
    spare ??= start();
  });
}

const prepared = new PreparedDerivations(scryptInWorker);

/** Starts an unlock's scrypt before the open asks for it (see ./prepared-derivations.ts). */
export function prepareScrypt(d: UserKeyDerivation): void {
  prepared.prepare(d);
}

/** Routes the engine's scrypt through throw-away workers; call once at engine start. */
export function installWorkerScrypt(): void {
  // Not at once: a warm start (remembered key, no scrypt) would share the cores with its boot.
  setTimeout(() => (spare ??= start()), 500);
  setPrimitives({ ...primitives(), scrypt: prepared.derive });
}
