// "Unpacked" files — config, index, snapshots, locks — each one sealed object. In v2
// repositories the plaintext is 0x02 || zstd(JSON); a plaintext starting with '{' or '['
// is raw JSON (v1 style, still accepted). docs/restic-format.md §5.

import { CairnError, type ErrorCode } from '../errors';
import { compress, decompress } from '../compress';

const textEncoder = new TextEncoder();

/** Plaintext bytes of an unpacked file for a repository of this version. */
export function encodeUnpackedPlain(json: string | Uint8Array, version: number): Uint8Array {
  const raw = typeof json === 'string' ? textEncoder.encode(json) : json;
  if (version < 2) return raw;
  const z = compress(raw);
  const out = new Uint8Array(1 + z.length);
  out[0] = 2;
  out.set(z, 1);
  return out;
}

/**
 * The most an unpacked file may expand to (its zstd frame says nothing trustworthy). restic
 * writes an index file per 50 000 blobs (150 000 compressed), some 20 MiB of JSON; snapshots
 * hold their paths, tags and excludes; locks and the config are a few hundred bytes. The limits
 * leave ten times room and bound what a decompression bomb can take.
 */
export const UNPACKED_LIMIT: Record<'index' | 'snapshots' | 'locks' | 'config', number> = {
  index: 256 << 20,
  snapshots: 256 << 20,
  locks: 1 << 20,
  config: 1 << 20,
};

/** The JSON bytes inside an unpacked file's plaintext, expanded to at most `maxSize` bytes. */
export function decodeUnpackedPlain(plain: Uint8Array, what: string, code: ErrorCode, maxSize?: number): Uint8Array {
  if (plain[0] === 2) {
    try {
      return decompress(plain.subarray(1), undefined, maxSize);
    } catch (e) {
      throw new CairnError(code, `${what}: does not decompress: ${(e as Error).message}`, { cause: e });
    }
  }
  if (plain[0] === 0x7b || plain[0] === 0x5b) return plain;
  throw new CairnError(code, `${what}: unsupported encoding format (first byte ${plain[0] ?? 'none'})`);
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

export function parseJSON(bytes: Uint8Array, what: string, code: ErrorCode): unknown {
  try {
    return JSON.parse(textDecoder.decode(bytes));
  } catch (e) {
    throw new CairnError(code, `${what}: not valid JSON`, { cause: e });
  }
}
