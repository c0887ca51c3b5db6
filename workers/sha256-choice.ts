// SHA-256 is on every byte of a backup (chunk IDs, pack IDs) and of a restore (verification).
// Which implementation is faster depends on the browser, the machine and the input's size:
// - WebCrypto is the fastest where the browser's BoringSSL uses SHA instructions (Chrome on
//   x86-64 and ARM), but some builds run it without them, slower than hash-wasm's WebAssembly.
// - Chromium copies a digest's input first, and from 960 KiB on (PartitionAlloc's largest
//   bucket) that copy is memory mapped for the call and unmapped after it: one page fault per
//   4 KiB, which where faults are dear makes WebCrypto slower than hash-wasm from that size on
//   (bench/probes/fault-cost.mjs; figures in bench/README.md). Those sizes are a backup's
//   large chunks and every 16 MiB pack.
// So each worker times both on a small input and on a large one (a few milliseconds) and keeps
// the faster for each; both give the same digests.

import { createSHA256, type IHasher } from 'hash-wasm';
import { primitives, setPrimitives } from '../core/crypto/primitives';

/** Inputs up to this size are "small": below the size from which Chromium maps the copy. */
export const SMALL_DIGEST = 896 << 10;
const SMALL_SAMPLE = 256 << 10;
const LARGE_SAMPLE = 2 << 20;
/**
 * WebCrypto must beat WebAssembly by this much on a large input to be kept for large inputs:
 * the timing runs alone, and the mapped copies' faults cost more still while other threads of
 * the page fault too, so a lone worker's timing flatters WebCrypto (bench/README.md).
 */
const LARGE_MARGIN = 1.2;
/** WebAssembly must beat WebCrypto by this much on a small input to replace it (timing noise). */
const SMALL_MARGIN = 1.1;

async function rate(fn: (d: Uint8Array) => Promise<unknown>, data: Uint8Array): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < 3; i++) await fn(data);
  return (3 * data.length) / Math.max(0.01, performance.now() - t);
}

/** 'split': WebCrypto for small inputs, WebAssembly for large ones. */
export type Sha256Use = 'webcrypto' | 'wasm' | 'split';
export type Sha256Choice = 'auto' | Sha256Use;

let choice: Promise<Sha256Use> | undefined;

/** Installs the faster SHA-256 for each input size in this worker (or the one forced); resolves with which. */
export function chooseSha256(force: Sha256Choice = 'auto'): Promise<Sha256Use> {
  choice ??= (async () => {
    if (force === 'webcrypto') return 'webcrypto' as const;
    const web = primitives().sha256;
    let hasher: IHasher;
    try {
      hasher = await createSHA256();
    } catch {
      return 'webcrypto' as const; // no WASM (CSP, old browser): keep WebCrypto
    }
    // One synchronous init/update/digest per call, so the hasher is never shared mid-way.
    const wasm = async (d: Uint8Array) => {
      hasher.init();
      hasher.update(d);
      return hasher.digest('binary');
    };
    const install = (use: Sha256Use): Sha256Use => {
      if (use === 'wasm') setPrimitives({ ...primitives(), sha256: wasm });
      if (use === 'split') setPrimitives({ ...primitives(), sha256: (d) => (d.length <= SMALL_DIGEST ? web(d) : wasm(d)) });
      return use;
    };
    if (force !== 'auto') return install(force);
    const faster = async (size: number) => {
      const data = new Uint8Array(size);
      await wasm(data); // compile and warm both before timing
      await web(data);
      const w = Math.max(await rate(web, data), await rate(web, data));
      const o = Math.max(await rate(wasm, data), await rate(wasm, data));
      return { web: w, wasm: o };
    };
    const small = await faster(SMALL_SAMPLE);
    const large = await faster(LARGE_SAMPLE);
    const smallWeb = small.wasm <= small.web * SMALL_MARGIN;
    const largeWeb = large.web >= large.wasm * LARGE_MARGIN;
    return install(smallWeb ? (largeWeb ? 'webcrypto' : 'split') : 'wasm');
  })();
  return choice;
}
