// Messages between restore (and check) and their decode threads (./decode-pool.ts; Node worker threads in cli/pool/, Web Workers in workers/pool/).

import type { SerializedError } from '../../core/errors';
import type { BlobLocation } from '../../core/index/master-index';

export interface DecodeInit {
  key: { encrypt: Uint8Array; macK: Uint8Array; macR: Uint8Array };
}

export interface DecodeRequest {
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
}

/**
 * Blobs listed without an object each (a pack holds thousands): blob i's 32-byte ID at
 * ids[32i…], its type in types[i] (0 data, 1 tree), its offset in the range, length and
 * uncompressed length at fields[3i…3i+2].
 */
export interface BlobList {
  ids: Uint8Array;
  types: Uint8Array;
  fields: Float64Array;
}

/** Only verify (check --read-data): no plain blob comes back, only the blobs that failed. */
export interface VerifyRequest {
  id: number;
  buffer: ArrayBuffer;
  offset: number;
  length: number;
  verify: BlobList;
}

export type ToDecoder = DecodeRequest | VerifyRequest;

/** Where a decoded blob is: in the returned buffer, in (part of) an extra buffer, or why it failed. */
export type DecodedRef = ({ at: number; length: number } | { extra: number; at?: number; length?: number } | { error: SerializedError }) & { crc?: number };

export type FromDecoder =
  | { type: 'ready' }
  | { type: 'initError'; error: SerializedError }
  | { type: 'decoded'; id: number; buffer: ArrayBuffer; results: DecodedRef[]; extras: Uint8Array[] }
  /** Every blob of a VerifyRequest not listed in `failures` verified. */
  | { type: 'verified'; id: number; buffer: ArrayBuffer; failures: { blob: number; error: SerializedError }[] };
