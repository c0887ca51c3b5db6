// AES-CTR is on every byte a backup writes and a restore reads. WebCrypto is fast where the
// browser runs it with AES instructions, but some builds of the same browser run it many
// times slower than core's WebAssembly AES (and Blink runs every WebCrypto call on one thread
// per renderer, so the file-saver workers queue behind each other). Each worker times both
// once (a few milliseconds) and keeps the faster; both give the same bytes.
//
// Even where WebCrypto wins on bulk data, each of its AES calls has a fixed CPU cost whatever
// its size (the trip to that thread and back), several times a SHA-256 digest's, which runs in
// place. Every blob sealed or opened makes one such call for 16 bytes (its Poly1305 key,
// seal.ts) and small files' blobs are a few KiB, so the WebAssembly AES takes the single
// blocks and data up to SMALL_CTR bytes, where it is done before WebCrypto's trip would be,
// in any case. The figures: bench/README.md.

import { wasmAes } from '../core/crypto/aes-wasm';
import { primitives, setPrimitives, type Primitives } from '../core/crypto/primitives';

const SAMPLE = 1 << 20;
/** AES-CTR data up to this size goes to the WebAssembly AES even where WebCrypto wins on bulk. */
export const SMALL_CTR = 4096;

async function rate(fn: (d: Uint8Array) => Promise<unknown>, data: Uint8Array): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < 3; i++) await fn(data);
  return (3 * data.length) / Math.max(0.01, performance.now() - t);
}

export type AesChoice = 'auto' | 'webcrypto' | 'wasm';

let choice: Promise<'webcrypto' | 'wasm'> | undefined;

/**
 * Installs the faster AES for this worker, or the one forced (a file-saver worker is given the
 * engine's choice); resolves with which one runs. 'webcrypto' keeps the small data on WebAssembly.
 */
export function chooseAes(force: AesChoice = 'auto'): Promise<'webcrypto' | 'wasm'> {
  choice ??= (async () => {
    const install = () => setPrimitives({ ...primitives(), ...wasmAes });
    if (force === 'wasm') {
      install();
      return 'wasm' as const;
    }
    const web = primitives();
    const small: Pick<Primitives, 'aes256ctr' | 'aes128block'> = {
      aes256ctr: (key, iv, data, out) => (data.length <= SMALL_CTR ? wasmAes.aes256ctr(key, iv, data, out) : web.aes256ctr(key, iv, data, out)),
      aes128block: wasmAes.aes128block,
    };
    if (force === 'webcrypto') {
      setPrimitives({ ...primitives(), ...small });
      return 'webcrypto' as const;
    }
    const key = new Uint8Array(32).fill(7),
      iv = new Uint8Array(16),
      data = new Uint8Array(SAMPLE);
    const viaWeb = (d: Uint8Array) => web.aes256ctr(key, iv, d);
    const own = (d: Uint8Array) => wasmAes.aes256ctr(key, iv, d);
    try {
      await own(data);
    } catch {
      return 'webcrypto' as const; // no WASM (CSP, old browser): keep WebCrypto
    }
    await viaWeb(data);
    const w = Math.max(await rate(viaWeb, data), await rate(viaWeb, data));
    const o = Math.max(await rate(own, data), await rate(own, data));
    if (o <= w * 1.1) {
      setPrimitives({ ...primitives(), ...small });
      return 'webcrypto' as const;
    }
    install();
    return 'wasm' as const;
  })();
  return choice;
}
