// scrypt (RFC 7914) split at its lanes: PBKDF2-HMAC-SHA256 (one iteration) expands the password
// into p blocks of 128·r bytes, each block is mixed on its own by ROMix (the memory-hard part,
// nearly all of the time), and PBKDF2 again condenses the mixed blocks into the key. `mix` may
// run the lanes anywhere, in parallel (the app's KDF workers); romixLanes runs them here, in a
// WebAssembly memory of 128·N·r bytes that is never given back, so only throw-away workers and
// tests call it. Key files and their parameters: docs/restic-format.md §3.

import { CairnError } from '../errors';
import { scryptWasm } from '../wasm/scrypt-module';

/** Mixes each 128·r-byte lane with ROMix(N, r); answers the lanes in the order given. */
export type MixLanes = (lanes: Uint8Array[], N: number, r: number) => Promise<Uint8Array[]>;

async function pbkdf2Once(password: Uint8Array, salt: Uint8Array, length: number): Promise<Uint8Array> {
  // hash-wasm, not WebCrypto: WebCrypto refuses an empty password, which restic allows.
  const { pbkdf2, createSHA256 } = await import('hash-wasm');
  return pbkdf2({ password, salt, iterations: 1, hashLength: length, hashFunction: createSHA256(), outputType: 'binary' });
}

export async function scryptLanes(password: Uint8Array, salt: Uint8Array, N: number, r: number, p: number, dkLen: number, mix: MixLanes): Promise<Uint8Array> {
  const len = 128 * r;
  const expanded = await pbkdf2Once(password, salt, p * len);
  const lanes = Array.from({ length: p }, (_, i) => expanded.slice(i * len, (i + 1) * len));
  const mixed = await mix(lanes, N, r);
  if (mixed.length !== p || mixed.some((l) => l.length !== len)) throw new CairnError('INTERNAL', 'scrypt: a lane came back the wrong size');
  const joined = new Uint8Array(p * len);
  mixed.forEach((l, i) => joined.set(l, i * len));
  return pbkdf2Once(password, joined, dkLen);
}

/** ROMix of each lane, one after the other, in this thread. */
export function romixLanes(lanes: Uint8Array[], N: number, r: number): Uint8Array[] {
  const w = scryptWasm();
  if (!w.romixSize(N, r)) throw new CairnError('INTERNAL', `scrypt needs ${Math.ceil((128 * N * r) / 2 ** 20)} MiB, which this browser did not give`);
  const len = 128 * r;
  return lanes.map((lane) => {
    new Uint8Array(w.memory.buffer, w.lanePtr(), len).set(lane);
    w.romix(N, r);
    return new Uint8Array(w.memory.buffer, w.lanePtr(), len).slice();
  });
}

/**
 * Makes this thread's memory ready for lanes of N and r: grown, and every page written once, so
 * the first lane does not pay the page faults (on some VMs ~150 ms for 32 MiB). False if it
 * cannot grow.
 */
export function touchLanes(N: number, r: number): boolean {
  const w = scryptWasm();
  if (!w.romixSize(N, r)) return false;
  new Uint8Array(w.memory.buffer, w.lanePtr(), 128 * r * (N + 2) + 64).fill(0);
  return true;
}

/**
 * Mixes lanes in at most `groups` groups of near-equal size, all at once (`mixGroup` may run
 * each group in a worker of its own), and answers the lanes in the order given.
 */
export async function mixInGroups(lanes: Uint8Array[], N: number, r: number, groups: number, mixGroup: MixLanes): Promise<Uint8Array[]> {
  const n = Math.max(1, Math.min(groups, lanes.length));
  const at = Array.from({ length: n }, (_, g) => lanes.map((_, i) => i).filter((i) => i % n === g));
  const mixed = await Promise.all(
    at.map((idx) =>
      mixGroup(
        idx.map((i) => lanes[i]!),
        N,
        r,
      ),
    ),
  );
  const out: Uint8Array[] = [];
  at.forEach((idx, g) => idx.forEach((i, k) => (out[i] = mixed[g]![k]!)));
  return out;
}
