// AES-256-CTR and AES-128 blocks in WebAssembly (core/wasm/as/aes.ts), as Primitives.
// Browsers whose WebCrypto AES is slow use these (workers time both and keep the faster,
// see workers/crypto-choice.ts); the results are identical to WebCrypto's and node:crypto's.

import { aesWasm, type AesExports } from '../wasm/aes-module';
import type { Primitives } from './primitives';

let mem: Uint8Array | undefined;
/** Key whose schedule is loaded, per key size. */
let loaded256: Uint8Array | undefined;
let loaded128: Uint8Array | undefined;

function wasm(): { w: AesExports; mem: Uint8Array } {
  const w = aesWasm();
  // The module sizes its memory once at start-up and never grows it: this view stays valid.
  mem ??= new Uint8Array(w.memory.buffer);
  return { w, mem };
}

export function wasmAes256ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array, out: Uint8Array = new Uint8Array(data.length)): Uint8Array {
  const { w, mem } = wasm();
  if (loaded256 !== key) {
    mem.set(key, w.keyPtr());
    w.expand256();
    loaded256 = key;
  }
  mem.set(iv, w.ivPtr());
  const at = w.dataPtr();
  const size = w.dataSize();
  for (let o = 0; o < data.length; o += size) {
    const n = Math.min(size, data.length - o);
    mem.set(data.subarray(o, o + n), at);
    w.ctr(n);
    out.set(mem.subarray(at, at + n), o);
  }
  return out;
}

export function wasmAes128block(key: Uint8Array, block: Uint8Array): Uint8Array {
  const { w, mem } = wasm();
  if (loaded128 !== key) {
    mem.set(key, w.keyPtr());
    w.expand128();
    loaded128 = key;
  }
  mem.set(block, w.ivPtr());
  w.block128();
  return mem.slice(w.outPtr(), w.outPtr() + 16);
}

/** The AES half of Primitives, in WebAssembly. */
export const wasmAes: Pick<Primitives, 'aes256ctr' | 'aes128block'> = {
  async aes256ctr(key, iv, data, out) {
    return wasmAes256ctr(key, iv, data, out);
  },
  async aes128block(key, block) {
    return wasmAes128block(key, block);
  },
};
