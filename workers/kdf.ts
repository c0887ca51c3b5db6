// scrypt for the engine worker: the PBKDF2 steps here, the lanes (ROMix, nearly all the time and
// all the memory) in throw-away workers (kdf.worker.ts), several at once when the key has
// several lanes (p > 1: Cairn's own keys have p = 8), so their memory is released as soon
// as the key is derived. Spare workers are kept started (from half a second after engine start;
// their WebAssembly warmed, no KDF memory yet) so an unlock does not wait for workers to boot.

import { CairnError } from '../core/errors';
import { primitives, setPrimitives } from '../core/crypto/primitives';
import { mixInGroups, scryptLanes } from '../core/crypto/scrypt-lanes';
import type { UserKeyDerivation } from '../core/repository/keyfile';
import type { KdfRequest, KdfResponse } from './kdf.worker';
import kdfWorkerUrl from './kdf.worker.ts?worker&url';
import { PreparedDerivations } from './prepared-derivations';
import { spawnWorker, type SpawnedWorker } from './spawn';

/** Lanes run on at most this many workers at once: the cores, up to four. */
const WORKERS = Math.max(1, Math.min(4, globalThis.navigator?.hardwareConcurrency || 2));
const spares: SpawnedWorker[] = [];
/** Derivations running: spares are not started beside one (they would share its cores); it refills them when done. */
let mixing = 0;

const start = () => spawnWorker(kdfWorkerUrl, 'cairn-kdf');
const refill = () => {
  while (spares.length < WORKERS) spares.push(start());
};

/** Spares' memory is made ready only up to this size each (a key of huge N is mixed as it comes). */
const TOUCH_MAX = 64 << 20;
/** Spares with ready memory are let go (their memory with them) when no unlock came this long. */
const TOUCHED_FOR_MS = 120_000;
let letGo: ReturnType<typeof setTimeout> | undefined;

/**
 * An unlock is coming (the page shows its form): spares now, not in half a second, and their
 * memory made ready for lanes of `size` (the key the location was last opened with).
 */
export function standBy(size?: { N: number; r: number }): void {
  if (mixing === 0) refill();
  if (!size || 128 * size.N * size.r > TOUCH_MAX) return;
  for (const w of spares) w.postMessage({ touch: true, N: size.N, r: size.r } satisfies KdfRequest);
  clearTimeout(letGo);
  letGo = setTimeout(() => {
    if (mixing > 0) return;
    for (const w of spares.splice(0)) w.terminate();
    refill();
  }, TOUCHED_FOR_MS);
}

/** Mixes `lanes` in one throw-away worker. */
function mixInWorker(lanes: Uint8Array[], N: number, r: number): Promise<Uint8Array[]> {
  const w = spares.pop() ?? start();
  return new Promise<Uint8Array[]>((resolve, reject) => {
    w.onmessage = (ev: MessageEvent<KdfResponse>) => {
      w.terminate();
      if (ev.data.ok) resolve(ev.data.lanes);
      else reject(new CairnError('INTERNAL', `scrypt failed: ${ev.data.message}`));
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      w.terminate();
      reject(new CairnError('INTERNAL', `scrypt worker failed: ${ev.message || 'script error'}`));
    };
    w.postMessage(
      { lanes, N, r } satisfies KdfRequest,
      lanes.map((l) => l.buffer),
    );
  });
}

/** The lanes spread over the workers, answered in their order. */
async function mixLanes(lanes: Uint8Array[], N: number, r: number): Promise<Uint8Array[]> {
  mixing++;
  try {
    return await mixInGroups(lanes, N, r, WORKERS, mixInWorker);
  } finally {
    mixing--;
    refill();
  }
}

function scryptInWorkers(password: Uint8Array, salt: Uint8Array, N: number, r: number, p: number, dkLen: number): Promise<Uint8Array> {
  return scryptLanes(password, salt, N, r, p, dkLen, mixLanes);
}

const prepared = new PreparedDerivations(scryptInWorkers);

/** Starts an unlock's scrypt before the open asks for it (see ./prepared-derivations.ts). */
export function prepareScrypt(d: UserKeyDerivation): void {
  prepared.prepare(d);
}

/** Routes the engine's scrypt through throw-away workers; call once at engine start. */
export function installWorkerScrypt(): void {
  // Not at once: a warm start (remembered key, no scrypt) would share the cores with its boot.
  setTimeout(() => mixing === 0 && refill(), 500);
  setPrimitives({ ...primitives(), scrypt: prepared.derive });
}
