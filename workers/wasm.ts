// WASM set-up, once per worker (squoosh's memoised init). zstd needs its .wasm fetched (the
// package's export map hides it, so it is imported by path as a Vite asset URL); the chunker
// and Poly1305 modules are embedded and instantiate on first use, in whichever worker uses them.

import { initZstd } from '../core/compress';
import { useWasmCrc32 } from '../core/restorer/crc32';
import zstdWasmUrl from '../node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm?url';

let ready: Promise<void> | undefined;

export function initWasm(): Promise<void> {
  // A ZIP's checksums (engine, decode workers); without it they run in JS.
  void useWasmCrc32().catch(() => {});
  ready ??= initZstd(async () => {
    const res = await fetch(zstdWasmUrl);
    if (!res.ok) throw new Error(`cannot load zstd.wasm: HTTP ${res.status}`);
    return res.arrayBuffer();
  }).catch((e) => {
    ready = undefined; // let a later call try again (e.g. after coming back online)
    throw e;
  });
  return ready;
}
