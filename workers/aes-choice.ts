// AES-CTR is on every byte a backup writes and a restore reads. WebCrypto is fast where the
// browser runs it with AES instructions (Debian's Chromium 156.0.8078.114: 900–1090 MB/s in
// 128 KiB pieces, core/crypto/primitives.ts), but 156.0.8078.73 measured 51–75 MB/s here (and
// Blink runs every WebCrypto call on one thread per renderer, so the file-saver workers
// queue behind each other), against ~175 MB/s per worker for core's WebAssembly AES. Each
// worker times both once (a few milliseconds) and keeps the faster; both give the same bytes.

import { wasmAes } from '../core/crypto/aes-wasm';
import { primitives, setPrimitives } from '../core/crypto/primitives';

const SAMPLE = 1 << 20;

async function rate(fn: (d: Uint8Array) => Promise<unknown>, data: Uint8Array): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < 3; i++) await fn(data);
  return (3 * data.length) / Math.max(0.01, performance.now() - t);
}

export type AesChoice = 'auto' | 'webcrypto' | 'wasm';

let choice: Promise<'webcrypto' | 'wasm'> | undefined;

/** Installs the faster AES for this worker (or the one forced); resolves with which one runs. */
export function chooseAes(force: AesChoice = 'auto'): Promise<'webcrypto' | 'wasm'> {
  choice ??= (async () => {
    if (force === 'webcrypto') return 'webcrypto' as const;
    const install = () => setPrimitives({ ...primitives(), ...wasmAes });
    if (force === 'wasm') {
      install();
      return 'wasm' as const;
    }
    const key = new Uint8Array(32).fill(7), iv = new Uint8Array(16), data = new Uint8Array(SAMPLE);
    const web = (d: Uint8Array) => primitives().aes256ctr(key, iv, d);
    const own = (d: Uint8Array) => wasmAes.aes256ctr(key, iv, d);
    try {
      await own(data);
    } catch {
      return 'webcrypto' as const; // no WASM (CSP, old browser): keep WebCrypto
    }
    await web(data);
    const w = Math.max(await rate(web, data), await rate(web, data));
    const o = Math.max(await rate(own, data), await rate(own, data));
    if (o <= w * 1.1) return 'webcrypto' as const;
    install();
    return 'wasm' as const;
  })();
  return choice;
}
