// core/chunker owns content-defined chunking exactly as restic does it (restic/chunker v0.4.0,
// docs/restic-format.md §13): the chunker polynomial from the repository config (§4) and the cut
// points, so identical file content yields identical blobs (cross-client dedup).
// The per-byte loop runs in WebAssembly (core/wasm/as/chunker.ts).

export { Chunker, MIN_SIZE, MAX_SIZE } from './chunker';
export { chunkStream, type ChunkStreamOptions } from './chunk-stream';
export { deg, formatPol, isIrreducible, parsePol, polGcd, polMod, polMulMod, randomPolynomial, type Pol } from './polynomial';
