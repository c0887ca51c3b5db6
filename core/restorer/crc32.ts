// CRC-32 (IEEE 802.3, as ZIP uses it), slice-by-8: eight table lookups per 8 bytes instead of
// one per byte; hash-wasm's WebAssembly one where it is loaded (useWasmCrc32).

import type { IHasher } from 'hash-wasm';

const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const tables = [t0];
  for (let i = 1; i < 8; i++) {
    const prev = tables[i - 1]!;
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) t[n] = (t0[prev[n]! & 0xff]! ^ (prev[n]! >>> 8)) >>> 0;
    tables.push(t);
  }
  return tables;
})();

/** hash-wasm's WebAssembly CRC-32, once useWasmCrc32() has loaded it. */
let wasm: IHasher | undefined;
let loading: Promise<void> | undefined;

/**
 * Has crc32() use hash-wasm's WebAssembly CRC-32 for pieces of 4 KiB or more, which runs
 * several times faster than the slice-by-8 below (figures: bench/README.md); a ZIP checksums
 * every byte it holds. Where WebAssembly cannot run, crc32() stays as it is.
 */
export function useWasmCrc32(): Promise<void> {
  loading ??= import('hash-wasm')
    .then(({ createCRC32 }) => createCRC32())
    .then((h) => void (wasm = h))
    .catch((e: unknown) => {
      loading = undefined;
      throw e;
    });
  return loading;
}

/** Continues a CRC-32 over `data` (start with 0). */
export function crc32(data: Uint8Array, crc = 0): number {
  if (wasm && data.length >= 4096) {
    wasm.init();
    wasm.update(data);
    const d = wasm.digest('binary');
    const own = ((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0;
    return crc === 0 ? own : crc32Combine(crc, own, data.length);
  }
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let c = ~crc >>> 0;
  let i = 0;
  const n = data.length;
  for (; i + 8 <= n; i += 8) {
    const a = (c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))) >>> 0;
    c =
      t7[a & 0xff]! ^
      t6[(a >>> 8) & 0xff]! ^
      t5[(a >>> 16) & 0xff]! ^
      t4[a >>> 24]! ^
      t3[data[i + 4]!]! ^
      t2[data[i + 5]!]! ^
      t1[data[i + 6]!]! ^
      t0[data[i + 7]!]!;
  }
  for (; i < n; i++) c = t0[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const POLY = 0xedb88320;

/** a·b modulo the CRC polynomial, both as reflected 32-bit polynomials (x^0 in the top bit). */
function mulModP(a: number, b: number): number {
  let p = 0;
  for (let m = 0x80000000; m !== 0; m >>>= 1) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31 (x^1 is 0x40000000 reflected). */
const X2N: number[] = (() => {
  const t = [0x40000000];
  for (let k = 1; k < 32; k++) t.push(mulModP(t[k - 1]!, t[k - 1]!));
  return t;
})();

/** x^(8·n) modulo the polynomial: the shift of n bytes. */
function shiftBytes(n: number): number {
  let p = 0x80000000; // x^0
  let k = 3; // 8·n = n·2^3
  while (n > 0) {
    if (n % 2 === 1) p = mulModP(X2N[k % 32]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/**
 * The CRC-32 of A followed by B from the CRC of A, the CRC of B and B's length — as zlib's
 * crc32_combine — so parts can be checksummed apart (on other threads) and joined here.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (crcA === 0) return crcB >>> 0; // the shifted 0 is 0: a ZIP entry's first piece needs no shift
  return (mulModP(shiftBytes(lengthB), crcA >>> 0) ^ crcB) >>> 0;
}
