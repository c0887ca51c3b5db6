// Hostile repository objects written byte by byte, correctly encrypted with the engine: packs
// whose header says what the test wants (lengths past the end, near 2^32), index entries that
// lie, zstd blobs larger than they claim, trees nested thousands deep, and key, config and
// snapshot files with any JSON. Only the claims are hostile; every MAC verifies.

import { encodeNode, GoTime, type Node } from '../../core/data';
import { encodeSnapshot } from '../../core/data/snapshot';
import { seal } from '../../core/crypto/seal';
import { compress } from '../../core/compress';
import { hashID, type ID } from '../../core/id';
import type { IndexPack } from '../../core/index/index-file';
import { encodeHeader, type BlobType, type PackedBlob } from '../../core/pack/header';
import { encodeBlob } from '../../core/repository/blob-codec';
import type { Repository } from '../../core/repository/repository';

export const TIME = GoTime.parse('2020-09-13T12:26:40Z');

export interface RawBlob {
  type: BlobType;
  /** The stored (sealed) bytes. */
  sealed: Uint8Array;
  /** The blob's ID (the hash of its plain bytes, or any ID the test wants to claim). */
  id: ID;
  /** What the header claims; defaults to the truth. */
  length?: number;
  uncompressedLength?: number;
}

/** A pack of `blobs` whose header states their claimed lengths; returns its ID and the claims. */
export async function writeRawPack(repo: Repository, blobs: RawBlob[]): Promise<IndexPack & { size: number }> {
  const claims: PackedBlob[] = [];
  let offset = 0;
  for (const b of blobs) {
    claims.push({ type: b.type, id: b.id, offset, length: b.length ?? b.sealed.length, uncompressedLength: b.uncompressedLength ?? 0 });
    offset += b.sealed.length;
  }
  const header = await seal(repo.key, encodeHeader(claims));
  const bytes = new Uint8Array(offset + header.length + 4);
  let at = 0;
  for (const b of blobs) {
    bytes.set(b.sealed, at);
    at += b.sealed.length;
  }
  bytes.set(header, at);
  new DataView(bytes.buffer).setUint32(at + header.length, header.length, true);
  const id = await hashID(bytes);
  await repo.backend.save({ type: 'data', name: id }, bytes);
  return { id, blobs: claims, size: bytes.length };
}

/** A blob as the engine stores it (compressed when that pays off). */
export async function sealedBlob(repo: Repository, type: BlobType, plain: Uint8Array): Promise<RawBlob> {
  const enc = await encodeBlob(repo.key, type, plain, repo.version, 'auto');
  return { type, sealed: enc.sealed, id: await hashID(plain), uncompressedLength: enc.uncompressedLength };
}

/** A zstd blob (with the frame's content size) that decompresses to all of `plain`. */
export async function zstdBlob(repo: Repository, type: BlobType, plain: Uint8Array): Promise<RawBlob> {
  return { type, sealed: await seal(repo.key, compress(plain, 3)), id: await hashID(plain), uncompressedLength: plain.length };
}

/**
 * The same zstd frame without its content size (as streaming encoders write it): the header
 * is rebuilt with a window descriptor instead, the blocks are kept. A reader can only learn the
 * real size by decompressing.
 */
export function withoutContentSize(frame: Uint8Array): Uint8Array {
  const fhd = frame[4]!;
  const fcsFlag = fhd >> 6;
  const single = (fhd >> 5) & 1;
  const dictFlag = fhd & 3;
  if (dictFlag !== 0) throw new Error('frames with a dictionary ID are not handled');
  const fcsSize = [single ? 1 : 0, 2, 4, 8][fcsFlag]!;
  const headerEnd = 5 + (single ? 0 : 1) + fcsSize;
  // No content size, no single segment; checksum flag kept; window 2^27 (what decoders allow by default).
  const out = new Uint8Array(frame.length - headerEnd + 6);
  out.set(frame.subarray(0, 4));
  out[4] = fhd & 0b0000_0100;
  out[5] = (27 - 10) << 3;
  out.set(frame.subarray(headerEnd), 6);
  return out;
}

/** An index file listing exactly `packs` (any claims); returns its ID. */
export function writeRawIndex(repo: Repository, packs: IndexPack[]): Promise<ID> {
  return repo.saveIndex(packs);
}

/** A snapshot of `tree` as restic writes one. */
export function writeSnapshot(repo: Repository, tree: ID, paths = ['/src']): Promise<ID> {
  return repo.saveJSON('snapshots', encodeSnapshot({ time: TIME, tree, paths, hostname: 'attacker', username: 'mallory' }));
}

function treeJson(nodes: Node[]): Uint8Array {
  return new TextEncoder().encode(`{"nodes":[${nodes.map((n) => encodeNode(n)).join(',')}]}\n`);
}

const base = { mtime: TIME, atime: TIME, ctime: TIME, uid: 0, gid: 0 };

export function fileNode(name: string, content: ID[], size: number): Node {
  return { ...base, name, type: 'file', mode: 0o644, size, content };
}

export function dirNode(name: string, subtree: ID): Node {
  return { ...base, name, type: 'dir', mode: (0o755 | 0x80000000) >>> 0, content: null, subtree };
}

/**
 * A snapshot whose tree nests `depth` folders named `d`, one in the other, the innermost
 * holding a file `leaf` (written iteratively, deepest first: no recursion in the writer).
 */
export async function writeDeepSnapshot(repo: Repository, depth: number, leafData = new TextEncoder().encode('deep leaf\n')): Promise<ID> {
  const data = await sealedBlob(repo, 'data', leafData);
  const trees: RawBlob[] = [];
  let tree = treeJson([fileNode('leaf', [data.id], leafData.length)]);
  for (let i = 0; i <= depth; i++) {
    const blob = await sealedBlob(repo, 'tree', tree);
    trees.push(blob);
    if (i < depth) tree = treeJson([dirNode('d', blob.id)]);
  }
  const dataPack = await writeRawPack(repo, [data]);
  const treePacks: IndexPack[] = [];
  for (let i = 0; i < trees.length; i += 4000) treePacks.push(await writeRawPack(repo, trees.slice(i, i + 4000)));
  await writeRawIndex(repo, [dataPack, ...treePacks]);
  return writeSnapshot(repo, trees[trees.length - 1]!.id);
}

/** Writes `nodes` as one tree blob (in its own pack and index) and a snapshot of it. */
export async function writeFlatSnapshot(repo: Repository, nodes: Node[], extraData: RawBlob[] = []): Promise<{ snapshot: ID; tree: ID }> {
  const tree = await sealedBlob(repo, 'tree', treeJson(nodes));
  const packs: IndexPack[] = [await writeRawPack(repo, [tree])];
  if (extraData.length) packs.push(await writeRawPack(repo, extraData));
  await writeRawIndex(repo, packs);
  return { snapshot: await writeSnapshot(repo, tree.id), tree: tree.id };
}

/** Stores `json` as a key file (plain JSON, named by its hash); returns its ID. */
export async function writeKeyFile(repo: Repository, json: string): Promise<ID> {
  const bytes = new TextEncoder().encode(json);
  const id = await hashID(bytes);
  await repo.backend.save({ type: 'keys', name: id }, bytes);
  return id;
}

/** The config, sealed with the master key as restic stores it (never compressed). */
export async function sealedConfig(repo: Repository, json: string): Promise<Uint8Array> {
  return seal(repo.key, new TextEncoder().encode(json));
}
