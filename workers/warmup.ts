// What the first unlock would otherwise wait for, done as soon as the engine worker starts
// (the page is still rendering): zstd's WASM, Poly1305's WASM, a spare scrypt worker and the
// database. The warm path from page load to a listed snapshot has a 300 ms budget.

import { poly1305Wasm } from '../core/wasm';
import { clientId } from './cache/db';
import { initWasm } from './wasm';
import { installWorkerScrypt } from './kdf';

export function warmUp(): void {
  installWorkerScrypt();
  void initWasm().catch(() => {});
  void clientId().catch(() => {});
  setTimeout(() => {
    try {
      poly1305Wasm();
    } catch {
      // reported when first used
    }
  }, 0);
}
