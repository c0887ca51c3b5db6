// Packs against the index: each listed pack exists with exactly the size its blobs imply
// (restic "unexpected file size"); stored packs no index lists are hints. With read-data,
// each pack is read whole: its hash, its header, and every blob the index lists in it.

import { CairnError, serializeError } from '../errors';
import { hashID, type ID } from '../id';
import { decodeBlob } from '../repository/blob-codec';
import type { Repository } from '../repository/repository';
import { readPackHeader, expectedPackSize } from '../pack/reader';
import type { PackedBlob } from '../pack/header';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { memoryLoader } from './memory-loader';
import { problemFrom, type Report } from './problems';

/** Compares the stored packs with the index; returns the stored sizes. */
export async function checkPackList(repo: Repository, indexed: Map<ID, PackedBlob[]>, problem: Report, signal?: AbortSignal): Promise<Map<ID, number>> {
  const stored = new Map<ID, number>();
  for await (const fi of repo.backend.list('data', { signal })) stored.set(fi.name, fi.size);
  for (const [pack, blobs] of indexed) {
    const size = stored.get(pack);
    if (size === undefined) problem({ kind: 'pack-missing', code: 'NOT_FOUND', pack, message: `pack ${pack}: does not exist` });
    else if (size !== expectedPackSize(blobs)) {
      problem({ kind: 'pack-size', code: 'BAD_PACK', pack, message: `pack ${pack}: unexpected file size: got ${size}, expected ${expectedPackSize(blobs)}` });
    }
  }
  for (const pack of stored.keys()) {
    if (!indexed.has(pack)) problem({ kind: 'pack-unreferenced', code: 'BAD_PACK', pack, hint: true, message: `pack ${pack} not referenced in any index` });
  }
  return stored;
}

export async function checkPackData(
  repo: Repository,
  pack: ID,
  size: number,
  indexBlobs: PackedBlob[],
  problem: Report,
  signal?: AbortSignal,
  buffers: Uint8Array[] = [],
): Promise<void> {
  let bytes: Uint8Array;
  // Packs are read into reused buffers and their blobs decrypted in place (fresh pages are
  // what costs most per byte on some VMs); the buffer goes back when this pack is done.
  let into = buffers.pop();
  if (into && into.length < size) into = undefined;
  into ??= new Uint8Array(Math.max(size, PACK_BUFFER_SIZE));
  try {
    bytes = await repo.backend.load({ type: 'data', name: pack }, { signal, into });
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    problem({ kind: 'pack-missing', pack, ...problemFrom(e, `pack ${pack}`) });
    return;
  }
  const got = await hashID(bytes);
  if (got !== pack)
    problem({ kind: 'pack-hash', code: 'HASH_MISMATCH', pack, message: `pack ${pack}: ID does not match, want ${pack.slice(0, 8)}, got ${got.slice(0, 8)}` });
  let header: PackedBlob[] | undefined;
  try {
    header = await readPackHeader(memoryLoader(bytes), repo.key, pack, size, signal);
  } catch (e) {
    problem({ kind: 'pack-header', pack, code: serializeError(e).code, message: `pack ${pack}: ${stripPack(serializeError(e).message, pack)}` });
  }
  if (header) compareHeader(pack, header, indexBlobs, problem);
  // Check every blob the index lists for this pack (the header may be the corrupt part).
  await checkBlobs(repo, pack, bytes, header ?? indexBlobs, problem);
  if (bytes.buffer === into.buffer && buffers.length < 4) buffers.push(into);
}

function compareHeader(pack: ID, header: PackedBlob[], indexBlobs: PackedBlob[], problem: Report): void {
  const key = (b: PackedBlob) => `${b.type}:${b.id}:${b.offset}:${b.length}`;
  const inHeader = new Set(header.map(key));
  for (const b of indexBlobs) {
    if (!inHeader.has(key(b)))
      problem({
        kind: 'pack-header',
        code: 'BAD_PACK',
        pack,
        blob: b.id,
        message: `pack ${pack}: blob ${b.id.slice(0, 8)} listed in index is not in the pack header at offset ${b.offset}`,
      });
  }
}

async function checkBlobs(repo: Repository, pack: ID, bytes: Uint8Array, listed: PackedBlob[], problem: Report): Promise<void> {
  // In place only where no other listed blob shares the bytes (a damaged header might).
  const overlaps = new Set<PackedBlob>();
  const byOffset = [...listed].sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < byOffset.length; i++) {
    const prev = byOffset[i - 1]!,
      cur = byOffset[i]!;
    if (cur.offset < prev.offset + prev.length) {
      overlaps.add(prev);
      overlaps.add(cur);
    }
  }
  for (const b of listed) {
    try {
      if (b.offset + b.length > bytes.length) {
        throw new CairnError('BAD_PACK', `blob extends past the end of the pack (offset ${b.offset} + length ${b.length} > ${bytes.length} bytes)`);
      }
      await decodeBlob(repo.key, bytes.subarray(b.offset, b.offset + b.length), { ...b, packID: pack }, !overlaps.has(b));
    } catch (e) {
      const s = serializeError(e);
      problem({
        kind: 'blob',
        code: s.code,
        pack,
        blob: b.id,
        message: `pack ${pack}: blob ${b.id} (${b.type}, offset ${b.offset}): ${stripBlob(s.message, b.id)}`,
      });
    }
  }
}

/** "pack 1234abcd: invalid header length" → "invalid header length" (the line names the pack already). */
function stripPack(message: string, pack: ID): string {
  const short = `pack ${pack.slice(0, 8)}: `;
  return message.startsWith(short) ? message.slice(short.length) : message;
}

/** "data blob a9fb6f65 in pack 3131f378 fails authentication (corrupt)" → "fails authentication (corrupt)". */
function stripBlob(message: string, blob: ID): string {
  const m = new RegExp(`^(data|tree) blob ${blob.slice(0, 8)}( in pack [0-9a-f]{8})? `).exec(message);
  return m ? message.slice(m[0].length) : message;
}
