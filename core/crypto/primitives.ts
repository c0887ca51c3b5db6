// The few raw primitives the engine needs, behind one swappable object. The default uses
// WebCrypto (browser workers and Node alike) and hash-wasm's scrypt; the Node CLI installs
// node:crypto versions (cli/adapters/node-primitives.ts) because Node's WebCrypto AES-CTR
// is several times slower than node:crypto's (figures: bench/README.md).

import { garbageMade } from '../memory/garbage';

export interface Primitives {
  sha256(data: Uint8Array): Promise<Uint8Array>;
  /**
   * AES-256-CTR with the whole 16-byte IV as one big-endian 128-bit counter (Go's
   * cipher.NewCTR). Writes into `out` (same length as `data`) when given, else a new array.
   */
  /** `out` may be `data` itself (decryption in place); every implementation reads a slice before writing it. */
  aes256ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array, out?: Uint8Array): Promise<Uint8Array>;
  /** One raw AES-128 block encryption (ECB of a single block), used for Poly1305-AES's nonce. */
  aes128block(key: Uint8Array, block: Uint8Array): Promise<Uint8Array>;
  scrypt(password: Uint8Array, salt: Uint8Array, N: number, r: number, p: number, dkLen: number): Promise<Uint8Array>;
  randomBytes(n: number): Uint8Array;
}

const subtle = (): SubtleCrypto => globalThis.crypto.subtle;

// Imported CryptoKeys are cached per key byte array (keys are long-lived objects).
const ctrKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function ctrKey(key: Uint8Array): Promise<CryptoKey> {
  let k = ctrKeys.get(key);
  if (!k) {
    k = subtle().importKey('raw', key as BufferSource, { name: 'AES-CTR' }, false, ['encrypt']);
    ctrKeys.set(key, k);
  }
  return k;
}

const ZERO_BLOCK = new Uint8Array(16);

/**
 * WebCrypto AES-CTR works on pieces of this many bytes (a multiple of 16). Chromium copies the
 * input of each call and allocates its output. Every call faults once per 4 KiB whatever its
 * size (perf puts the faulting copy inside the encrypt() call itself), and from 960 KiB on the
 * copy is memory mapped for the call as well, faulting twice over; so fewer, larger calls
 * below that size cost least: the largest power of two under 960 KiB. The piece sizes
 * measured: bench/README.md.
 */
const CTR_PIECE = 512 << 10;

/** The counter block `blocks` 16-byte blocks after `iv` (a big-endian 128-bit integer, wrapping). */
export function ctrAdd(iv: Uint8Array, blocks: number): Uint8Array {
  // A copy, never a view: Node's Buffer.slice() shares memory, and the caller's IV must stay.
  const out = new Uint8Array(16);
  out.set(iv.subarray(0, 16));
  let carry = blocks;
  for (let i = 15; i >= 0 && carry > 0; i--) {
    const sum = out[i]! + (carry % 256);
    out[i] = sum & 0xff;
    carry = Math.floor(carry / 256) + (sum >> 8);
  }
  return out;
}

export const webPrimitives: Primitives = {
  async sha256(data) {
    return new Uint8Array(await subtle().digest('SHA-256', data as BufferSource));
  },
  async aes256ctr(key, iv, data, out) {
    const k = await ctrKey(key);
    garbageMade(data.length); // each piece's output is a new ArrayBuffer
    const piece = (counter: Uint8Array, bytes: Uint8Array) =>
      subtle().encrypt({ name: 'AES-CTR', counter: counter as BufferSource, length: 128 }, k, bytes as BufferSource);
    if (data.length <= CTR_PIECE) {
      const ct = new Uint8Array(await piece(iv, data));
      if (!out) return ct;
      out.set(ct);
      return out;
    }
    const dst = out ?? new Uint8Array(data.length);
    // In order, each piece read before it is written: `out` may be `data` (in place).
    for (let at = 0; at < data.length; at += CTR_PIECE) {
      dst.set(new Uint8Array(await piece(ctrAdd(iv, at / 16), data.subarray(at, at + CTR_PIECE))), at);
    }
    return dst;
  },
  async aes128block(key, block) {
    // WebCrypto has no ECB; CTR with counter = block over 16 zero bytes yields E_k(block).
    const k = await ctrKey(key);
    return new Uint8Array(await subtle().encrypt({ name: 'AES-CTR', counter: block as BufferSource, length: 128 }, k, ZERO_BLOCK));
  },
  async scrypt(password, salt, N, r, p, dkLen) {
    const { scrypt } = await import('hash-wasm');
    return scrypt({ password, salt, costFactor: N, blockSize: r, parallelism: p, hashLength: dkLen, outputType: 'binary' });
  },
  randomBytes(n) {
    const out = new Uint8Array(n);
    // getRandomValues takes at most 65536 bytes per call.
    for (let o = 0; o < n; o += 65536) globalThis.crypto.getRandomValues(out.subarray(o, Math.min(n, o + 65536)));
    return out;
  },
};

let current: Primitives = webPrimitives;

export function primitives(): Primitives {
  return current;
}

/** Installs a runtime's faster primitives (Node). Call once at start-up. */
export function setPrimitives(p: Primitives): void {
  current = p;
}
