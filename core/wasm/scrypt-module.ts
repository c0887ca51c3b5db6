// Typed view of core/wasm/as/scrypt.ts.

import { wasmBase64 } from './generated/scrypt';
import { lazyInstance } from './instantiate';

export interface ScryptExports {
  readonly memory: WebAssembly.Memory;
  /** Where a lane's 128·r bytes go in, and come out mixed. */
  lanePtr(): number;
  /** Grows the memory for N and r (128·N·r bytes and a little); false if it cannot grow. */
  romixSize(N: number, r: number): boolean;
  /** ROMix of the lane at lanePtr(), in place. */
  romix(N: number, r: number): void;
}

export const scryptWasm = lazyInstance<ScryptExports>(wasmBase64);
