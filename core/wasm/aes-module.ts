// Typed view of core/wasm/as/aes.ts (see there for the layout and the algorithm).

import { wasmBase64 } from './generated/aes';
import { lazyInstance } from './instantiate';

export interface AesExports {
  readonly memory: WebAssembly.Memory;
  keyPtr(): number;
  ivPtr(): number;
  outPtr(): number;
  dataPtr(): number;
  dataSize(): number;
  expand256(): void;
  expand128(): void;
  block128(): void;
  ctr(len: number): void;
}

export const aesWasm = lazyInstance<AesExports>(wasmBase64);
