// Typed view of core/wasm/as/chunker.ts (see there for the memory layout and the algorithm).

import { wasmBase64 } from './generated/chunker';
import { lazyInstance } from './instantiate';

export interface ChunkerExports {
  readonly memory: WebAssembly.Memory;
  /** Start of the scan buffer; the 64 bytes before it are the history window. */
  dataPtr(): number;
  dataSize(): number;
  /** 4 KiB of tables (mod, out) for the current polynomial. */
  tablesPtr(): number;
  setPolynomial(pol: bigint): void;
  /** Sets the shift after tables for a polynomial of this degree were copied back in. */
  setDegree(k: number): void;
  /** First index in data[0..n) whose window fingerprint matches the split mask, or -1. */
  findCut(n: number): number;
  /** The fingerprint at the index findCut returned. */
  foundDigest(): bigint;
  /** Fingerprint of the 64 bytes ending at data[n-1]. */
  fingerprintAt(n: number): bigint;
}

export const chunkerWasm = lazyInstance<ChunkerExports>(wasmBase64);
