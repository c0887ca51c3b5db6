import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import type { Backend } from '../backend/backend';
import { encodeSnapshot, GoTime } from '../data';
import { hashID } from '../id';
import { CairnError } from '../errors';
import type { IndexPack } from '../index/index-file';
import { encodeBlob } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import type { Repository } from '../repository/repository';
import { backup } from '../archiver/archiver';
import { inProcessPool } from '../archiver/pool';
import { check, type CheckProblem } from './check';

const text = (s: string) => new TextEncoder().encode(s);

/** A small, healthy repository: one snapshot of three files in two directories. */
async function healthy() {
  const { repo, backend } = await memRepo();
  const src = new MemSource({ d: { 'one.txt': { data: text('one\n') }, 'two.txt': { data: text('two\n') }, sub: { 'three.txt': { data: text('three\n') } } } });
  const r = await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'h', targets: ['/d'] });
  await repo.loadIndex();
  return { repo, backend, snapshot: r };
}

async function replace(be: Backend, h: Parameters<Backend['load']>[0], f: (b: Uint8Array) => Uint8Array): Promise<void> {
  const b = f(await be.load(h));
  await be.remove(h);
  await be.save(h, b);
}

/** Stores raw blobs in a new pack with its own index file (what a buggy writer might do). */
async function storeIndexed(repo: Repository, blobs: { type: 'data' | 'tree'; plain: Uint8Array }[]): Promise<IndexPack> {
  const saved: IndexPack[] = [];
  const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
  for (const b of blobs) {
    const enc = await encodeBlob(repo.key, b.type, b.plain, 2, 'auto');
    await pm.add(b.type, await hashID(b.plain), enc.sealed, enc.uncompressedLength);
  }
  await pm.flush();
  await repo.saveIndex(saved);
  return saved[0]!;
}

async function snapshotOf(repo: Repository, tree: string): Promise<string> {
  return repo.saveJSON('snapshots', encodeSnapshot({ time: GoTime.parse('2024-01-01T00:00:00Z'), tree, paths: ['/x'], hostname: 'h' }));
}

const kinds = (ps: CheckProblem[]) => ps.map((p) => `${p.kind}:${p.code}${p.hint ? ':hint' : ''}`).sort();

async function dataPackOf(repo: Repository, content: string): Promise<{ packID: string; offset: number; length: number }> {
  return repo.lookupBlob('data', await hashID(text(content)))!;
}

/** A healthy repository with one bit flipped inside the blob of 'three\n' (in pack `packID`). */
async function withFlippedBit() {
  const { repo, backend } = await healthy();
  const { packID, offset } = await dataPackOf(repo, 'three\n');
  await replace(backend, { type: 'data', name: packID }, (b) => {
    b[offset + 20]! ^= 1;
    return b;
  });
  return { repo, packID };
}

describe('check', () => {
  beforeAll(initEngine);

  it('finds nothing wrong in a healthy repository, with and without reading data', async () => {
    const { repo } = await healthy();
    const lines: string[] = [];
    const progress: [number, number][] = [];
    const r = await check(repo, { readData: true, onMessage: (l) => lines.push(l), onProgress: (d, t) => progress.push([d, t]) });
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.snapshots).toBe(1);
    expect(r.packs).toBe((await repo.listIDs('data')).length);
    expect(lines).toEqual(['load indexes', 'check all packs', 'check snapshots, trees and blobs', 'read all data']);
    expect(progress[progress.length - 1]).toEqual([r.packs, r.packs]);
  });

  it('an index file that cannot be loaded: kind "index"', async () => {
    const { repo } = await healthy();
    await repo.saveJSON('index', '{"packs":');
    const r = await check(repo);
    expect(kinds(r.problems)).toContain('index:BAD_INDEX');
    expect(r.ok).toBe(false);
  });

  it('a pack the index lists but the backend lacks: kind "pack-missing"', async () => {
    const { repo, backend } = await healthy();
    const { packID } = await dataPackOf(repo, 'one\n');
    await backend.remove({ type: 'data', name: packID });
    const r = await check(repo, { readData: true });
    const missing = r.problems.filter((p) => p.kind === 'pack-missing');
    expect(missing).toEqual([expect.objectContaining({ kind: 'pack-missing', code: 'NOT_FOUND', pack: packID })]);
    // The three small files share the pack: each is named with its snapshot.
    const sn = r.problems.length && (await repo.listIDs('snapshots'))[0]!.slice(0, 8);
    expect([...missing[0]!.files!].sort()).toEqual(['/d/one.txt', '/d/sub/three.txt', '/d/two.txt'].map((f) => `${f} (snapshot ${sn})`));
    expect(missing[0]!.message).toBe(`pack ${packID}: does not exist; used by ${missing[0]!.files!.join(', ')}`);
    expect(r.ok).toBe(false);
  });

  it('a pack of the wrong size: kind "pack-size" (restic: unexpected file size)', async () => {
    const { repo, backend } = await healthy();
    const { packID } = await dataPackOf(repo, 'two\n');
    await replace(backend, { type: 'data', name: packID }, (b) => Buffer.concat([b, new Uint8Array(3)]));
    const r = await check(repo);
    const p = r.problems.find((x) => x.kind === 'pack-size')!;
    expect(p).toMatchObject({ code: 'BAD_PACK', pack: packID });
    expect(p.message).toMatch(/unexpected file size: got \d+, expected \d+/);
  });

  it('a pack no index lists is only a hint; the repository is still ok', async () => {
    const { repo, backend } = await healthy();
    await backend.save({ type: 'data', name: 'ab'.repeat(32) }, new Uint8Array(100));
    const r = await check(repo);
    expect(kinds(r.problems)).toEqual(['pack-unreferenced:BAD_PACK:hint']);
    expect(r.problems[0]!.message).toBe(`pack ${'ab'.repeat(32)} not referenced in any index`);
    expect(r.ok).toBe(true);
  });

  it('with --read-data, a flipped bit in a blob: kinds "pack-hash" and "blob"', async () => {
    const { repo, packID } = await withFlippedBit();
    expect((await check(repo)).ok).toBe(true); // structure alone looks fine
    const r = await check(repo, { readData: true });
    expect(kinds(r.problems)).toEqual(['blob:MAC_MISMATCH', 'pack-hash:HASH_MISMATCH']);
    expect(r.problems.find((p) => p.kind === 'blob')).toMatchObject({ pack: packID, blob: await hashID(text('three\n')) });
  });

  it('with --read-data, a corrupt pack header: kind "pack-header", blobs still checked from the index', async () => {
    const { repo, backend } = await healthy();
    const { packID } = await dataPackOf(repo, 'one\n');
    await replace(backend, { type: 'data', name: packID }, (b) => {
      b[b.length - 10]! ^= 1; // inside the sealed header
      return b;
    });
    const r = await check(repo, { readData: true });
    expect(kinds(r.problems)).toEqual(['pack-hash:HASH_MISMATCH', 'pack-header:BAD_PACK']);
  });

  it('with --read-data, an index entry the header does not have: kind "pack-header" naming the blob', async () => {
    const { repo, backend } = await healthy();
    // Rewrite the only index so that one blob carries a made-up ID (same offset and length).
    const [indexID] = await repo.listIDs('index');
    const packs = (await repo.loadJSON('index', indexID!)) as { packs: { id: string; blobs: { id: string; type: string }[] }[] };
    const victim = packs.packs.find((p) => p.blobs[0]!.type === 'data')!.blobs[0]!;
    const original = victim.id;
    victim.id = 'cd'.repeat(32);
    await backend.remove({ type: 'index', name: indexID! });
    await repo.saveJSON('index', JSON.stringify(packs));
    const fresh = await healthyReopen(repo);
    const r = await check(fresh, { readData: true });
    const header = r.problems.filter((p) => p.kind === 'pack-header');
    expect(header).toEqual([expect.objectContaining({ code: 'BAD_PACK', blob: 'cd'.repeat(32) })]);
    // And the tree now points at a blob no index lists.
    expect(r.problems.some((p) => p.kind === 'blob' && p.code === 'BLOB_NOT_FOUND' && p.blob === original)).toBe(true);
  });

  it('snapshots: unreadable ones, and ones whose tree no index lists: kind "snapshot"', async () => {
    const { repo } = await healthy();
    await repo.saveJSON('snapshots', '{"time":"never"}');
    await snapshotOf(repo, 'ef'.repeat(32));
    const r = await check(repo);
    expect(kinds(r.problems)).toEqual(['snapshot:BAD_SNAPSHOT', 'snapshot:BLOB_NOT_FOUND']);
    expect(r.problems.find((p) => p.code === 'BLOB_NOT_FOUND')!.blob).toBe('ef'.repeat(32));
    expect(r.snapshots).toBe(2);
  });

  const T = '"mtime":"2024-01-01T00:00:00Z","atime":"2024-01-01T00:00:00Z","ctime":"2024-01-01T00:00:00Z","uid":0,"gid":0';

  it('trees: a missing data blob is kind "blob", a missing sub-tree kind "tree"', async () => {
    const { repo } = await healthy();
    const missingData = 'aa'.repeat(32),
      missingTree = 'bb'.repeat(32);
    const tree = text(
      '{"nodes":[' +
        `{"name":"gone.txt","type":"file",${T},"size":5,"content":["${missingData}"]},` +
        `{"name":"subgone","type":"dir",${T},"content":null,"subtree":"${missingTree}"}` +
        ']}\n',
    );
    await storeIndexed(repo, [{ type: 'tree', plain: tree }]);
    const fresh = await healthyReopen(repo);
    await snapshotOf(fresh, await hashID(tree));
    const r = await check(fresh);
    expect(kinds(r.problems)).toEqual(['blob:BLOB_NOT_FOUND', 'tree:BLOB_NOT_FOUND']);
    expect(r.problems.find((p) => p.kind === 'blob')!.message).toMatch(/file "\/gone.txt" blob aaaaaaaa not found in index/);
    expect(r.problems.find((p) => p.kind === 'tree')!.blob).toBe(missingTree);
    expect(r.ok).toBe(false);
  });

  it("reads the data while the trees are checked; its line and its problems still come after the trees'", async () => {
    const { repo } = await withFlippedBit();
    const tree = text(`{"nodes":[{"name":"gone.txt","type":"file",${T},"size":5,"content":["${'aa'.repeat(32)}"]}]}\n`);
    await storeIndexed(repo, [{ type: 'tree', plain: tree }]);
    const fresh = await healthyReopen(repo);
    await snapshotOf(fresh, await hashID(tree));
    // What happened in order: the lines check says, and each whole pack it reads for its data.
    const log: string[] = [];
    const load = fresh.backend.load.bind(fresh.backend);
    fresh.backend.load = (h, o) => {
      if (h.type === 'data' && o?.offset === undefined && o?.length === undefined) log.push('read a pack');
      return load(h, o);
    };
    const r = await check(fresh, { readData: true, onMessage: (l) => log.push(l) });
    expect(log.indexOf('read a pack')).toBeGreaterThan(log.indexOf('check snapshots, trees and blobs'));
    expect(log.indexOf('read a pack')).toBeLessThan(log.indexOf('read all data'));
    expect(log.filter((l) => l !== 'read a pack')).toEqual(['load indexes', 'check all packs', 'check snapshots, trees and blobs', 'read all data']);
    expect(r.problems.map((p) => `${p.kind}:${p.code}`)).toEqual(['blob:BLOB_NOT_FOUND', 'pack-hash:HASH_MISMATCH', 'blob:MAC_MISMATCH']);
  });

  it('when the trees cannot be checked at all, the data read beside them is stopped before check fails', async () => {
    const { repo } = await healthy();
    const fresh = await healthyReopen(repo);
    const listIDs = fresh.listIDs.bind(fresh);
    fresh.listIDs = (t, signal) => (t === 'snapshots' ? Promise.reject(new CairnError('NETWORK', 'snapshots unreachable')) : listIDs(t, signal));
    let reads = 0;
    const load = fresh.backend.load.bind(fresh.backend);
    fresh.backend.load = async (h, o) => {
      if (h.type === 'data' && o?.offset === undefined) reads++;
      await new Promise((r) => setTimeout(r, 0));
      return load(h, o);
    };
    await expect(check(fresh, { readData: true })).rejects.toThrow('snapshots unreachable');
    const after = reads;
    await new Promise((r) => setTimeout(r, 20));
    expect(reads).toBe(after);
  });

  it.each([
    ['a file with a nil content list', `{"name":"nil.txt","type":"file",${T},"content":null}`],
    ['a dir without subtree', `{"name":"nosub","type":"dir",${T},"content":null}`],
  ])('trees: %s is reported for that node, as restic does', async (_what, node) => {
    // restic decodes such trees and reports the one node ("has nil blob list", "subtree id is
    // null"); so do we.
    const { repo } = await healthy();
    const tree = text(`{"nodes":[${node}]}\n`);
    await storeIndexed(repo, [{ type: 'tree', plain: tree }]);
    const fresh = await healthyReopen(repo);
    await snapshotOf(fresh, await hashID(tree));
    const r = await check(fresh);
    expect(kinds(r.problems)).toEqual(['tree:BAD_TREE']);
    expect(r.problems[0]!.blob).toBe(await hashID(tree));
    expect(r.problems[0]!.message).toMatch(/has nil blob list|subtree id is null/);
    expect(r.ok).toBe(false);
  });

  it('checks a tree shared by several snapshots once', async () => {
    const { repo, snapshot } = await healthy();
    await snapshotOf(repo, snapshot.snapshot.tree);
    const missing = 'aa'.repeat(32);
    const tree = text(
      `{"nodes":[{"name":"f","type":"file","mtime":"2024-01-01T00:00:00Z","atime":"2024-01-01T00:00:00Z","ctime":"2024-01-01T00:00:00Z","uid":0,"gid":0,"content":["${missing}"]}]}\n`,
    );
    await storeIndexed(repo, [{ type: 'tree', plain: tree }]);
    const fresh = await healthyReopen(repo);
    await snapshotOf(fresh, await hashID(tree));
    await snapshotOf(fresh, await hashID(tree));
    const r = await check(fresh);
    expect(r.problems.filter((p) => p.blob === missing)).toHaveLength(1);
    expect(r.snapshots).toBe(4);
  });
});

/** The same repository opened afresh (its index not yet loaded). */
async function healthyReopen(repo: Repository): Promise<Repository> {
  const { Repository: R } = await import('../repository/repository');
  return new R(repo.backend, repo.key, repo.keyID, repo.config);
}

describe('check --read-data-subset', () => {
  beforeAll(initEngine);

  it('n/t reads exactly the packs of group n: a damaged pack is found by its group only', async () => {
    const { repo, packID } = await withFlippedBit();
    const group = parseInt(packID.slice(0, 2), 16) % 7;
    for (let n = 1; n <= 7; n++) {
      const lines: string[] = [];
      const r = await check(await healthyReopen(repo), { readDataSubset: { kind: 'bucket', n, t: 7 }, onMessage: (l) => lines.push(l) });
      expect(r.ok).toBe(n - 1 !== group);
      expect(lines[lines.length - 1]).toMatch(new RegExp(`^read group #${n} of \\d+ data packs \\(out of total \\d+ packs in 7 groups\\)$`));
    }
  });
});
