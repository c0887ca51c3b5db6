// How one blob is stored inside a pack: optionally zstd-compressed, then sealed
// (restic internal/repository/repository.go saveAndEncrypt / LoadBlob).

import { CairnError } from '../errors';
import { compress, decompress } from '../compress';
import { open, seal, EXTENSION } from '../crypto/seal';
import type { Key } from '../crypto/keys';
import { hashID, toHex, type ID } from '../id';
import { primitives } from '../crypto/primitives';
import type { BlobType } from '../pack/header';

export type CompressionMode = 'auto' | 'off' | 'max';

export interface EncodedBlob {
  sealed: Uint8Array;
  /** 0 when stored as is. */
  uncompressedLength: number;
}

const SAMPLE = 16 * 1024;

/**
 * restic compresses every blob in "auto" mode, even random data that grows. We skip zstd
 * when three 16 KiB samples (start, middle, end) do not shrink by at least 3 % at level 1 —
 * random data (photos, archives, video) then costs no compression time — and we store a blob
 * uncompressed whenever its compressed form is not smaller. restic reads both forms.
 */
export function looksCompressible(plain: Uint8Array): boolean {
  if (plain.length <= 4 * SAMPLE) return true;
  const mid = (plain.length >> 1) - (SAMPLE >> 1);
  let packed = 0;
  for (const at of [0, mid, plain.length - SAMPLE]) packed += compress(plain.subarray(at, at + SAMPLE), 1).length;
  return packed < 3 * SAMPLE * 0.97;
}

function zstdLevel(mode: CompressionMode): number {
  return mode === 'max' ? 19 : 3;
}

export interface PreparedBlob {
  /** What gets sealed: the plain bytes themselves, or their zstd frame. */
  payload: Uint8Array;
  /** 0 when stored as is. */
  uncompressedLength: number;
}

/** Compresses a blob when that is allowed and pays off (see encodeBlob); does not seal it. */
export function prepareBlob(type: BlobType, plain: Uint8Array, version: number, mode: CompressionMode): PreparedBlob {
  const tryCompress = version >= 2 && (type === 'tree' || (mode !== 'off' && looksCompressible(plain)));
  if (tryCompress && plain.length > 0) {
    const z = compress(plain, type === 'tree' ? 3 : zstdLevel(mode));
    if (z.length < plain.length) return { payload: z, uncompressedLength: plain.length };
  }
  return { payload: plain, uncompressedLength: 0 };
}

export async function encodeBlob(key: Key, type: BlobType, plain: Uint8Array, version: number, mode: CompressionMode): Promise<EncodedBlob> {
  // v1 repositories cannot hold compressed blobs; in v2 trees are always compressed (as restic).
  const tryCompress = version >= 2 && (type === 'tree' || (mode !== 'off' && looksCompressible(plain)));
  if (tryCompress && plain.length > 0) {
    const z = compress(plain, type === 'tree' ? 3 : zstdLevel(mode));
    if (z.length < plain.length) return { sealed: await seal(key, z), uncompressedLength: plain.length };
  }
  return { sealed: await seal(key, plain), uncompressedLength: 0 };
}

export interface BlobRef {
  type: BlobType;
  id: ID;
  uncompressedLength: number;
  packID?: ID;
}

/** What names a blob in an error. */
type Named = Pick<BlobRef, 'type' | 'id' | 'packID'>;

function blobFailure(code: 'MAC_MISMATCH' | 'DECOMPRESS_FAILED' | 'HASH_MISMATCH', ref: Named, what: string, cause?: unknown): CairnError {
  const where = ref.packID ? ` in pack ${ref.packID.slice(0, 8)}` : '';
  return new CairnError(code, `${ref.type} blob ${ref.id.slice(0, 8)}${where} ${what}`, { cause, detail: { blob: ref.id, type: ref.type, pack: ref.packID } });
}

/** Opens a stored blob and decompresses it (see decodeBlob); `name` is asked for only when it fails. */
async function plainOf(
  key: Key,
  sealed: Uint8Array,
  form: { type: BlobType; uncompressedLength: number },
  name: () => Named,
  inPlace: boolean,
  into: Uint8Array | undefined,
): Promise<Uint8Array> {
  let plain: Uint8Array;
  try {
    plain = await open(key, sealed, inPlace);
  } catch (e) {
    throw blobFailure('MAC_MISMATCH', name(), 'fails authentication (corrupt)', e);
  }
  if (form.uncompressedLength === 0) return plain;
  try {
    // Every reader of a tree parses it and drops the bytes: a large one needs no copy out of zstd's memory.
    return decompress(plain, form.uncompressedLength, undefined, { view: form.type === 'tree', into });
  } catch (e) {
    throw blobFailure('DECOMPRESS_FAILED', name(), `does not decompress: ${(e as Error).message}`, e);
  }
}

/**
 * Opens a stored blob, decompresses it and checks that it hashes to its ID. With `inPlace`,
 * `sealed` is decrypted over itself (see seal.open) and may be returned as a view. With `into`
 * (a reused buffer of at least the plain size), a compressed blob is decompressed into it and
 * returned as a view of it.
 */
export async function decodeBlob(key: Key, sealed: Uint8Array, ref: BlobRef, inPlace = false, into?: Uint8Array): Promise<Uint8Array> {
  const plain = await plainOf(key, sealed, ref, () => ref, inPlace, into);
  const got = await hashID(plain);
  if (got !== ref.id) throw blobFailure('HASH_MISMATCH', ref, `has the wrong content (hash ${got.slice(0, 8)})`);
  return plain;
}

/**
 * Checks a stored blob as decodeBlob does, failing with the same errors, for a caller that
 * drops the bytes: decrypted in place, its ID as bytes (no hex string unless it fails).
 */
export async function verifyBlob(
  key: Key,
  sealed: Uint8Array,
  ref: { type: BlobType; id: Uint8Array; uncompressedLength: number },
  into?: Uint8Array,
): Promise<void> {
  const name = () => ({ type: ref.type, id: toHex(ref.id) });
  const got = await primitives().sha256(await plainOf(key, sealed, ref, name, true, into));
  for (let i = 0; i < 32; i++) if (got[i] !== ref.id[i]) throw blobFailure('HASH_MISMATCH', name(), `has the wrong content (hash ${toHex(got).slice(0, 8)})`);
}

/**
 * Plain sizes up to this share one buffer when blobs are only verified; a larger blob (or what
 * a damaged entry claims) is decompressed into a buffer of its own, as without one.
 */
const SCRATCH_MAX = 16 << 20;

/** A buffer to decompress each blob of these plain sizes into in turn (`into`), for callers that hash and drop them. */
export function scratchFor(plainSizes: Iterable<number>): Uint8Array {
  let n = 0;
  for (const size of plainSizes) if (size <= SCRATCH_MAX && size > n) n = size;
  return new Uint8Array(n);
}

/** The first bytes of every zstd frame (RFC 8878); a tree's JSON starts with `{`. */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd] as const;

function isZstdFrame(b: Uint8Array): boolean {
  return b.length >= 4 && ZSTD_MAGIC.every((m, i) => b[i] === m);
}

/**
 * A blob's plain bytes without its index entry (a cached tree read before the index is
 * loaded): the stored form is told from the decrypted bytes (a zstd frame, or the blob as is),
 * and only bytes whose SHA-256 is `id` are returned — the hash, not the guess, is what is
 * trusted. Undefined when the MAC or the hash fails; the caller then reads it by the index.
 */
export async function decodeUnindexed(key: Key, sealed: Uint8Array, type: BlobType, id: ID): Promise<Uint8Array | undefined> {
  let plain: Uint8Array;
  try {
    plain = await open(key, sealed);
  } catch {
    return undefined;
  }
  if (isZstdFrame(plain)) {
    try {
      const out = decompress(plain, undefined, undefined, { view: type === 'tree' });
      if ((await hashID(out)) === id) return out;
    } catch {
      // not a frame after all: the bytes as they are, below
    }
  }
  return (await hashID(plain)) === id ? plain : undefined;
}

/** The plain size implied by an index entry. */
export function plainLength(length: number, uncompressedLength: number): number {
  return uncompressedLength > 0 ? uncompressedLength : length - EXTENSION;
}
