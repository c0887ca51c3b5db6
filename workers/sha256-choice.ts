// SHA-256 is on every byte of a backup (chunk IDs, pack IDs) and of a restore (verification).
// WebCrypto is the fastest where the browser's BoringSSL uses SHA instructions (Chrome on
// x86-64 and ARM), but some builds run it without them — Debian's Chromium measured 100–160
// MB/s against hash-wasm's 170–280 MB/s on the same machine. So each worker times both once
// (a few milliseconds) and keeps the faster; both give the same digests.

import { createSHA256, type IHasher } from 'hash-wasm';
import { primitives, setPrimitives } from '../core/crypto/primitives';

const SAMPLE = 1 << 20;

async function rate(fn: (d: Uint8Array) => Promise<unknown>, data: Uint8Array): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < 3; i++) await fn(data);
  return (3 * data.length) / Math.max(0.01, performance.now() - t);
}

let choice: Promise<'webcrypto' | 'wasm'> | undefined;

export type Sha256Choice = 'auto' | 'webcrypto' | 'wasm';

/** Installs the faster SHA-256 for this worker (or the one forced); resolves with which one runs. */
export function chooseSha256(force: Sha256Choice = 'auto'): Promise<'webcrypto' | 'wasm'> {
  choice ??= (async () => {
    if (force === 'webcrypto') return 'webcrypto' as const;
    const base = primitives();
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
    if (force === 'wasm') {
      setPrimitives({ ...primitives(), sha256: wasm });
      return 'wasm' as const;
    }
    const data = new Uint8Array(SAMPLE);
    await wasm(data); // compile and warm both before timing
    await base.sha256(data);
    const web = Math.max(await rate(base.sha256, data), await rate(base.sha256, data));
    const own = Math.max(await rate(wasm, data), await rate(wasm, data));
    if (own <= web * 1.1) return 'webcrypto' as const;
    setPrimitives({ ...primitives(), sha256: wasm });
    return 'wasm' as const;
  })();
  return choice;
}
