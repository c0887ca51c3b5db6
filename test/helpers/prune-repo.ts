// Repositories laid out pack by pack, for prune's unit tests: each call stores one pack with
// exactly the given blobs (sealed by the engine, compressed or not as asked) and, unless told
// otherwise, one index file for it; snapshots are a root tree of files naming data blobs.

import { encodeTree, GoTime, type Node } from '../../core/data';
import { encodeSnapshot } from '../../core/data/snapshot';
import { compress } from '../../core/compress';
import { seal } from '../../core/crypto/seal';
import { hashID, type ID } from '../../core/id';
import type { IndexPack } from '../../core/index/index-file';
import { Packer } from '../../core/pack/packer';
import type { BlobType } from '../../core/pack/header';
import type { Repository } from '../../core/repository/repository';
import { seededBytes } from '../fixtures/chunker/generate';

const TIME = GoTime.parse('2024-01-02T03:04:05Z');

export interface BlobSpec {
  type?: BlobType;
  data: Uint8Array;
  /** Store the zstd frame (default: data blobs plain, trees compressed in v2). */
  compressed?: boolean;
}

/** `n` seeded random bytes (incompressible), different per seed. */
export const bytes = (seed: number, n: number): Uint8Array => seededBytes(seed, n);

/** Stores one pack holding `blobs` in this order; with `index` (default) also an index file for it. */
export async function putPack(repo: Repository, blobs: BlobSpec[], opts: { index?: boolean } = {}): Promise<{ pack: IndexPack; ids: ID[]; size: number }> {
  const packer = new Packer();
  const ids: ID[] = [];
  for (const b of blobs) {
    const type = b.type ?? 'data';
    const id = await hashID(b.data);
    ids.push(id);
    const compressed = b.compressed ?? (type === 'tree' && repo.version >= 2);
    const payload = compressed ? compress(b.data, 3) : b.data;
    packer.add(type, id, await seal(repo.key, payload), compressed ? b.data.length : 0);
  }
  const f = await packer.finish(repo.key);
  await repo.backend.save({ type: 'data', name: f.id }, f.bytes);
  const pack = { id: f.id, blobs: f.entries.blobs() };
  if (opts.index ?? true) await repo.saveIndex([pack]);
  return { pack, ids, size: f.bytes.length };
}

/** A tree blob of files named f0, f1, … whose contents are the given data blob lists. */
export function fileTree(files: ID[][], dirs: { name: string; tree: ID }[] = []): Uint8Array {
  const nodes: Node[] = [
    ...files.map((content, i): Node => ({ name: `f${i}`, type: 'file', mode: 0o644, mtime: TIME, atime: TIME, ctime: TIME, uid: 0, gid: 0, size: 0, content })),
    ...dirs.map((d): Node => ({
      name: d.name,
      type: 'dir',
      mode: 0x800001ed,
      mtime: TIME,
      atime: TIME,
      ctime: TIME,
      uid: 0,
      gid: 0,
      content: null,
      subtree: d.tree,
    })),
  ];
  return encodeTree(nodes.sort((a, b) => (a.name < b.name ? -1 : 1)));
}

/** A snapshot of `tree` (its ID). */
export async function putSnapshot(repo: Repository, tree: ID, seconds = 0): Promise<ID> {
  return repo.saveJSON(
    'snapshots',
    encodeSnapshot({ time: GoTime.fromMillis(TIME.unixMillis() + seconds * 1000, 0), tree, paths: ['/src'], hostname: 'h', username: 'u' }),
  );
}

/** Every stored object's name per type, for before/after comparisons. */
export async function listing(repo: Repository): Promise<Record<'data' | 'index' | 'snapshots', string[]>> {
  const names = async (t: 'data' | 'index' | 'snapshots') => {
    const out: string[] = [];
    for await (const fi of repo.backend.list(t)) out.push(fi.name);
    return out.sort();
  };
  return { data: await names('data'), index: await names('index'), snapshots: await names('snapshots') };
}
