// Messages between restore and its decode threads (./decode-pool.ts; Node worker threads in cli/pool/, Web Workers in workers/pool/).

import type { SerializedError } from '../../core/errors';
import type { BlobLocation } from '../../core/index/master-index';

export interface DecodeInit {
  key: { encrypt: Uint8Array; macK: Uint8Array; macR: Uint8Array };
}

export interface ToDecoder {
  id: number;
  buffer: ArrayBuffer;
  offset: number;
  length: number;
  /** Offsets relative to the range [offset, offset + length). */
  blobs: BlobLocation[];
  /** Also the CRC-32 of each plain blob (for ZIP entries). */
  crc?: boolean;
  /** Each plain blob in an ArrayBuffer of its own (decrypted out of place), for a consumer that transfers them. */
  own?: boolean;
  /** With `own`: all of them together in one new ArrayBuffer instead (one transfer, not one per blob). */
  together?: boolean;
  /** Only verify (check --read-data): no plain blob comes back, each result is `verified` or the error. */
  verify?: boolean;
}

/** Where a decoded blob is: in the returned buffer, in (part of) an extra buffer, nowhere (verified only), or why it failed. */
export type DecodedRef = (
  { at: number; length: number } | { extra: number; at?: number; length?: number } | { verified: true } | { error: SerializedError }
) & {
  crc?: number;
};

export type FromDecoder =
  | { type: 'ready' }
  | { type: 'initError'; error: SerializedError }
  | { type: 'decoded'; id: number; buffer: ArrayBuffer; results: DecodedRef[]; extras: Uint8Array[] };
