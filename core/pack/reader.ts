// Reads a pack's header from its tail without any index (restic pack.List): the last four
// bytes give the sealed header's length; the header lists blobs in order.

import { CairnError } from '../errors';
import { EXTENSION, open } from '../crypto/seal';
import type { Key } from '../crypto/keys';
import type { Loader } from '../backend/backend';
import { entrySize, MAX_HEADER_SIZE, parseHeader, type PackedBlob } from './header';

/** restic reads this much of the tail eagerly (15 compressed entries + overhead). */
const EAGER_TAIL = 15 * 41 + EXTENSION + 4;

export async function readPackHeader(loader: Loader, key: Key, packID: string, packSize: number, signal?: AbortSignal): Promise<PackedBlob[]> {
  const bad = (msg: string) => new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)}: ${msg}`, { detail: { pack: packID } });
  if (packSize < 4 + EXTENSION) throw bad(`file of ${packSize} bytes is too small`);
  const h = { type: 'data' as const, name: packID };
  const eager = Math.min(EAGER_TAIL, packSize);
  let tail = await loader.load(h, { offset: packSize - eager, length: eager, signal });
  if (tail.length !== eager) throw bad('short read');
  const headerLen = new DataView(tail.buffer, tail.byteOffset).getUint32(tail.length - 4, true);
  if (headerLen < EXTENSION || headerLen > MAX_HEADER_SIZE + EXTENSION || headerLen + 4 > packSize) {
    throw bad(`invalid header length ${headerLen}`);
  }
  if (headerLen + 4 > eager) {
    tail = await loader.load(h, { offset: packSize - 4 - headerLen, length: headerLen + 4, signal });
  }
  const sealed = tail.subarray(tail.length - 4 - headerLen, tail.length - 4);
  let plain: Uint8Array;
  try {
    plain = await open(key, sealed);
  } catch (e) {
    throw new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)}: header does not decrypt`, { cause: e, detail: { pack: packID } });
  }
  const blobs = parseHeader(plain, packID);
  let end = 0;
  for (const b of blobs) end = b.offset + b.length;
  if (end + headerLen + 4 !== packSize) throw bad(`size ${packSize} does not match its header (${end + headerLen + 4})`);
  return blobs;
}

/** The exact size a pack with these blobs has (check compares it with the stored size). */
export function expectedPackSize(blobs: readonly PackedBlob[]): number {
  let size = 4 + EXTENSION;
  for (const b of blobs) size += b.length + entrySize(b);
  return size;
}
