import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { chunkerWasm } from './chunker-module';
import { wasmBase64 as chunkerBase64 } from './generated/chunker';
import { wasmBase64 as poly1305Base64 } from './generated/poly1305';
import { decodeBase64, lazyInstance } from './instantiate';
import { poly1305Wasm } from './poly1305-module';

describe('generated WASM modules', () => {
  it('are exactly what the AssemblyScript sources compile to', async () => {
    // Recompiles core/wasm/as/*.ts with the pinned flags and compares byte for byte.
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build-wasm.mjs', '--check'], { cwd: new URL('../..', import.meta.url) });
    expect(stdout).toContain('chunker: up to date');
    expect(stdout).toContain('poly1305: up to date');
  }, 120_000);

  it('are valid modules that import nothing', () => {
    for (const b64 of [chunkerBase64, poly1305Base64]) {
      const bytes = decodeBase64(b64);
      expect(Array.from(bytes.subarray(0, 4))).toEqual([0, 0x61, 0x73, 0x6d]); // \0asm
      expect(WebAssembly.Module.imports(new WebAssembly.Module(bytes as BufferSource))).toEqual([]);
    }
  });

  it('are instantiated once and memoised', () => {
    expect(chunkerWasm()).toBe(chunkerWasm());
    expect(poly1305Wasm()).toBe(poly1305Wasm());
    const a = lazyInstance<{ memory: WebAssembly.Memory }>(poly1305Base64);
    const b = lazyInstance<{ memory: WebAssembly.Memory }>(poly1305Base64);
    expect(a()).toBe(a());
    expect(a().memory).not.toBe(b().memory); // separate lazies, separate instances
  });

  it('decodes base64', () => {
    expect(Array.from(decodeBase64('AAEC/w=='))).toEqual([0, 1, 2, 255]);
    expect(decodeBase64('').length).toBe(0);
  });
});
