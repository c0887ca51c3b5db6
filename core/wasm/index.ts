// core/wasm owns Cairn's WebAssembly: the AssemblyScript sources (as/, compiled by
// scripts/build-wasm.mjs), the committed modules built from them (generated/), and their lazy,
// synchronous instantiation. Inside: the per-byte loop of restic's Rabin chunker
// (docs/restic-format.md §13), Poly1305 for Poly1305-AES (§2) and scrypt's ROMix (the key files'
// KDF, §3). Callers use core/chunker, core/crypto/poly1305 and core/crypto/scrypt-lanes, not these
// modules directly.

export { chunkerWasm, type ChunkerExports } from './chunker-module';
export { poly1305Wasm, type Poly1305Exports } from './poly1305-module';
export { scryptWasm, type ScryptExports } from './scrypt-module';
export { decodeBase64, lazyInstance } from './instantiate';
