// check --read-data (restic Checker.ReadPacks): every chosen pack read whole, its bytes hashed
// against its name, its header decrypted and compared with the index, and each blob decrypted,
// decompressed and hashed. Packs go into reused buffers; with a `verifyPack` (the decode
// threads) the blobs are verified on other cores while this thread reads and hashes the next
// packs, so a check uses every core as restic's does.

import { CairnError, serializeError } from '../errors';
import { hashID, type ID } from '../id';
import type { PackedBlob } from '../pack/header';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { readPackHeader } from '../pack/reader';
import { mapLimit } from '../concurrency/concurrency';
import { decodeBlob, scratchFor } from '../repository/blob-codec';
import type { Repository } from '../repository/repository';
import type { PackVerifier } from '../restorer/decode-pool';
import { memoryLoader } from './memory-loader';
import { stripBlob, stripPack } from './packs';
import { problemFrom, type Report } from './problems';

/** Where problems go (see problems.ts). */
export type ProblemSink = Report;

export interface ReadPacksOptions {
  signal?: AbortSignal;
  /** Verifies a pack's blobs elsewhere (threads); without it they are verified here. */
  verifyPack?: PackVerifier;
  /** Packs in flight at once (default 2; more with `verifyPack`, so reads and decoding overlap). */
  concurrency?: number;
  onProgress?: (done: number, total: number, what: string) => void;
}

/** Reads `packs` (IDs with their stored size and index entries) and reports what is wrong. */
export async function readPacks(
  repo: Repository,
  packs: { id: ID; size: number; blobs: PackedBlob[] }[],
  problem: ProblemSink,
  opts: ReadPacksOptions,
): Promise<void> {
  let done = 0;
  const buffers: Uint8Array[] = [];
  await mapLimit(packs, opts.concurrency ?? 2, async (p) => {
    const back = await checkPackData(repo, p.id, p.size, p.blobs, problem, opts, buffers.pop());
    if (back && back.length >= PACK_BUFFER_SIZE && buffers.length < 6) buffers.push(back);
    opts.onProgress?.(++done, packs.length, 'packs');
  });
}

/** One pack; returns the buffer it was read into, for the next pack. */
async function checkPackData(
  repo: Repository,
  pack: ID,
  size: number,
  indexBlobs: PackedBlob[],
  problem: ProblemSink,
  opts: ReadPacksOptions,
  into: Uint8Array | undefined,
): Promise<Uint8Array | undefined> {
  // Fresh pages are what costs most per byte on some VMs: packs go into reused buffers.
  if (into && into.length < size) into = undefined;
  into ??= new Uint8Array(Math.max(size, PACK_BUFFER_SIZE));
  let bytes: Uint8Array;
  try {
    bytes = await repo.backend.load({ type: 'data', name: pack }, { signal: opts.signal, into });
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    problem({ kind: 'pack-missing', pack, ...problemFrom(e, `pack ${pack}`) });
    return into;
  }
  const got = await hashID(bytes);
  if (got !== pack)
    problem({ kind: 'pack-hash', code: 'HASH_MISMATCH', pack, message: `pack ${pack}: ID does not match, want ${pack.slice(0, 8)}, got ${got.slice(0, 8)}` });
  let header: PackedBlob[] | undefined;
  try {
    header = await readPackHeader(memoryLoader(bytes), repo.key, pack, size, opts.signal);
  } catch (e) {
    problem({ kind: 'pack-header', code: serializeError(e).code, pack, message: `pack ${pack}: ${stripPack(serializeError(e).message, pack)}` });
  }
  if (header) compareWithIndex(pack, header, indexBlobs, problem);
  // Every blob the header lists, or the index when the header is the damaged part.
  const back = await verifyBlobs(repo, pack, bytes, header ?? indexBlobs, problem, opts);
  return back.buffer === into.buffer ? into : new Uint8Array(back.buffer);
}

/** Whether both list the same blobs at the same places (in any order): what an intact pack shows. */
function sameBlobs(a: PackedBlob[], b: PackedBlob[]): boolean {
  if (a.length !== b.length) return false;
  const byOffset = (list: PackedBlob[]) => [...list].sort((x, y) => x.offset - y.offset);
  const sb = byOffset(b);
  return byOffset(a).every((x, i) => {
    const y = sb[i]!;
    return x.offset === y.offset && x.length === y.length && x.type === y.type && x.id === y.id;
  });
}

function compareWithIndex(pack: ID, header: PackedBlob[], indexBlobs: PackedBlob[], problem: ProblemSink): void {
  if (sameBlobs(header, indexBlobs)) return;
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

/** Blobs sharing bytes with another listed blob (only a damaged header lists such). */
function overlapping(listed: PackedBlob[]): Set<PackedBlob> {
  const out = new Set<PackedBlob>();
  const byOffset = [...listed].sort((a, b) => a.offset - b.offset);
  let reach: PackedBlob | undefined;
  for (const cur of byOffset) {
    if (reach && cur.offset < reach.offset + reach.length) {
      out.add(reach);
      out.add(cur);
    }
    if (!reach || cur.offset + cur.length > reach.offset + reach.length) reach = cur;
  }
  return out;
}

/** Verifies the blobs (in place where they do not overlap); returns the bytes' buffer as it came back. */
async function verifyBlobs(
  repo: Repository,
  pack: ID,
  bytes: Uint8Array,
  listed: PackedBlob[],
  problem: ProblemSink,
  opts: ReadPacksOptions,
): Promise<Uint8Array> {
  const blobProblem = (b: PackedBlob, e: unknown) =>
    problem({
      kind: 'blob',
      code: serializeError(e).code,
      pack,
      blob: b.id,
      message: `pack ${pack}: blob ${b.id} (${b.type}, offset ${b.offset}): ${stripBlob(serializeError(e).message, b.id)}`,
    });
  const inside = listed.filter((b) => {
    if (b.offset + b.length <= bytes.length) return true;
    blobProblem(b, new CairnError('BAD_PACK', `blob extends past the end of the pack (offset ${b.offset} + length ${b.length} > ${bytes.length} bytes)`));
    return false;
  });
  const overlaps = overlapping(inside);
  if (opts.verifyPack && overlaps.size === 0 && inside.length > 0) {
    const r = await opts.verifyPack(repo.key, bytes, inside, opts.signal);
    r.errors.forEach((e, i) => e !== undefined && blobProblem(inside[i]!, e));
    return r.bytes;
  }
  // Each compressed blob is decompressed into one buffer, hashed and dropped.
  const scratch = scratchFor(inside.map((b) => b.uncompressedLength));
  for (const b of inside) {
    try {
      await decodeBlob(repo.key, bytes.subarray(b.offset, b.offset + b.length), { ...b, packID: pack }, !overlaps.has(b), scratch);
    } catch (e) {
      blobProblem(b, e);
    }
  }
  return bytes;
}
