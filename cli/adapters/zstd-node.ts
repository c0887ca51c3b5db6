// Loads zstd.wasm from node_modules for the Node runtime.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { initZstd } from '../../core/compress';

export function initZstdNode(): Promise<void> {
  return initZstd(async () => {
    // The package's export map hides its files; its Node entry sits next to the same zstd.wasm.
    const entry = createRequire(import.meta.url).resolve('@bokuweb/zstd-wasm');
    return readFile(path.join(path.dirname(entry), 'zstd.wasm'));
  });
}
