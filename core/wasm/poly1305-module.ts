// Typed view of core/wasm/as/poly1305.ts.

import { wasmBase64 } from './generated/poly1305';
import { lazyInstance } from './instantiate';

export interface Poly1305Exports {
  readonly memory: WebAssembly.Memory;
  /** 32 bytes: r (unclamped) || s. */
  keyPtr(): number;
  /** 16 bytes, written by finish(). */
  tagPtr(): number;
  dataPtr(): number;
  dataSize(): number;
  init(): void;
  /** Absorbs the whole 16-byte blocks of data[0..len). */
  blocks(len: number): void;
  /** Absorbs the final 0..15 bytes at data[0..len) and writes the tag. */
  finish(len: number): void;
}

export const poly1305Wasm = lazyInstance<Poly1305Exports>(wasmBase64);
