import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initEngine, memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { bytes, fileTree, listing, putPack, putSnapshot } from '../../test/helpers/prune-repo';
import type { Backend } from '../backend/backend';
import { MemoryBackend } from '../backend/mem';
import { check } from '../check';
import { CairnError } from '../errors';
import { hashID } from '../id';
import { Repository } from '../repository/repository';
import { executePrune, planPrune, type PlanOptions, type PruneProgress } from '.';

/**
 * A repository after a forget: snapshot `kept` uses a1, b1, b2 (and c-dir's tree); the
 * forgotten snapshot's file was deleted, leaving a2 (unused, next to a1), pack PC (unused
 * whole), its root tree (next to the kept one) and one pack no index lists.
 */
async function forgotten(opts: { version?: number; backend?: Backend } = {}) {
  const { repo, backend } = await memRepo(opts);
  const [a1, a2, b1, b2, c1] = [bytes(1, 3000), bytes(2, 5000), bytes(3, 2000), bytes(4, 2500), bytes(5, 4000)];
  const pa = await putPack(repo, [{ data: a1 }, { data: a2 }]);
  const pb = await putPack(repo, [{ data: b1 }, { data: b2 }]);
  const pc = await putPack(repo, [{ data: c1 }]);
  const sub = fileTree([[pb.ids[1]!]]);
  const keptRoot = fileTree([[pa.ids[0]!], [pb.ids[0]!]], [{ name: 'c', tree: await hashID(sub) }]);
  const goneRoot = fileTree([[pa.ids[1]!, pc.ids[0]!]]);
  const pt = await putPack(repo, [
    { type: 'tree', data: sub },
    { type: 'tree', data: keptRoot },
    { type: 'tree', data: goneRoot },
  ]);
  const kept = await putSnapshot(repo, pt.ids[1]!);
  const gone = await putSnapshot(repo, pt.ids[2]!, 60);
  await repo.backend.remove({ type: 'snapshots', name: gone });
  const pu = await putPack(repo, [{ data: bytes(6, 100) }], { index: false });
  return { repo, backend, kept, packs: { pa, pb, pc, pt, pu }, keptData: [a1, b1, b2] };
}

/** A fresh Repository on the same backend (what the next process sees). */
const reopen = (backend: Backend) => Repository.open(backend, TEST_PASSWORD);

async function prune(repo: Repository, opts: PlanOptions = {}) {
  const plan = await planPrune(repo, opts);
  return { plan, result: await executePrune(plan, { signal: opts.signal }) };
}

/** check --read-data finds nothing (hints — packs no index lists — only when allowed). */
async function expectValid(backend: Backend, allowHints = false) {
  const r = await check(await reopen(backend), { readData: true });
  expect(r.problems.filter((p) => !(allowHints && p.hint))).toEqual([]);
  expect(r.ok).toBe(true);
}

/** Every data blob the kept snapshot names reads back byte for byte. */
async function expectKeptData(backend: Backend, data: Uint8Array[]) {
  const repo = await reopen(backend);
  await repo.loadIndex();
  for (const d of data) expect(await repo.loadBlob('data', await hashID(d))).toEqual(d);
}

describe('prune (engine)', () => {
  beforeAll(initEngine);

  it('plans restic’s numbers, then deletes, repacks and rewrites the index; a second plan finds nothing to do', async () => {
    const { repo, backend, packs, keptData } = await forgotten();
    const plan = await planPrune(repo);
    const s = plan.stats;
    expect(plan.snapshots).toBe(1);
    // used: a1 b1 b2 + 2 trees; unused: a2, c1, the forgotten root.
    expect(s.blobs).toMatchObject({ used: 5, unused: 3, duplicate: 0, total: 8, remove: 1, repack: 5, repackRemove: 2, removeTotal: 3, remaining: 5 });
    expect(s.packs).toMatchObject({ used: 1, partlyUsed: 2, unused: 1, unreferenced: 1, total: 5, keep: 1, repack: 2, remove: 1, removeTotal: 2 });
    expect(s.bytes.unreferenced).toBe(packs.pu.size);
    // Sizes count sealed blobs (headers not), and unreferenced packs whole.
    const blobBytes = (p: { pack: { blobs: { length: number }[] } }) => p.pack.blobs.reduce((n, b) => n + b.length, 0);
    expect(s.bytes.total).toBe(blobBytes(packs.pa) + blobBytes(packs.pb) + blobBytes(packs.pc) + blobBytes(packs.pt) + packs.pu.size);
    expect(s.bytes.remainingUnused).toBe(0);
    expect(plan.packs.removeUnreferenced).toEqual([packs.pu.pack.id]);
    expect(plan.packs.remove).toEqual([packs.pc.pack.id]);
    expect([...plan.packs.repack].sort()).toEqual([packs.pa.pack.id, packs.pt.pack.id].sort());

    const before = await listing(repo);
    const result = await executePrune(plan);
    const after = await listing(repo);
    expect(after.data).toContain(packs.pb.pack.id);
    for (const p of [packs.pa, packs.pc, packs.pt, packs.pu]) expect(after.data).not.toContain(p.pack.id);
    expect(after.data).toHaveLength(3); // pb + a new data pack + a new tree pack
    expect(after.index).toHaveLength(1);
    expect(before.index.some((i) => after.index.includes(i))).toBe(false);
    expect(result).toMatchObject({ packsDeleted: 4, packsWritten: 2, indexFilesWritten: 1, indexFilesDeleted: 4, packsNotDeleted: [] });
    expect(result.bytesDeleted).toBe(packs.pa.size + packs.pc.size + packs.pt.size + packs.pu.size);

    await expectValid(backend);
    await expectKeptData(backend, keptData);
    const again = await planPrune(await reopen(backend));
    expect(again.stats.packs).toMatchObject({ repack: 0, remove: 0, unreferenced: 0, partlyUsed: 0, unused: 0 });
    expect(again.stats.blobs).toMatchObject({ used: 5, unused: 0 });
  });

  it('reads each tree once, however many snapshots share it', async () => {
    const { repo } = await memRepo();
    const data = await putPack(repo, [{ data: bytes(1, 100) }]);
    const leaf = fileTree([[data.ids[0]!]]);
    const mid = fileTree([], [{ name: 'l', tree: await hashID(leaf) }]);
    const midID = await hashID(mid);
    const tops = [
      fileTree([], [{ name: 'a', tree: midID }]),
      fileTree([], [{ name: 'b', tree: midID }]),
      fileTree([[data.ids[0]!]], [{ name: 'c', tree: midID }]),
    ];
    const pt = await putPack(repo, [{ type: 'tree', data: leaf }, { type: 'tree', data: mid }, ...tops.map((t) => ({ type: 'tree' as const, data: t }))]);
    for (const [i, id] of pt.ids.slice(2).entries()) await putSnapshot(repo, id, i);
    const loads = vi.spyOn(repo, 'loadBlob');
    const plan = await planPrune(repo);
    const trees = loads.mock.calls.filter((c) => c[0] === 'tree').map((c) => c[1]);
    expect(trees.sort()).toEqual([...pt.ids].sort());
    expect(plan.stats.blobs).toMatchObject({ used: 6, unused: 0 });
  });

  it('walks a tree its quick reader leaves alone the ordinary way (Go matches "Content" to content)', async () => {
    const { repo } = await memRepo();
    const data = await putPack(repo, [{ data: bytes(1, 100) }, { data: bytes(2, 100) }]);
    const T = '"2024-01-02T03:04:05Z"';
    const tree = new TextEncoder().encode(
      `{"nodes":[{"name":"f","type":"file","mode":420,"mtime":${T},"atime":${T},"ctime":${T},"uid":0,"gid":0,"Content":["${data.ids[0]}"]}]}\n`,
    );
    const pt = await putPack(repo, [{ type: 'tree', data: tree }]);
    await putSnapshot(repo, pt.ids[0]!);
    expect((await planPrune(repo)).stats.blobs).toMatchObject({ used: 2, unused: 1 });
  });

  it('refuses when a used blob is in no index, and changes nothing', async () => {
    const { repo } = await memRepo();
    const tree = fileTree([[await hashID(bytes(9, 10))]]);
    const pt = await putPack(repo, [{ type: 'tree', data: tree }]);
    await putSnapshot(repo, pt.ids[0]!);
    await putPack(repo, [{ data: bytes(8, 10) }]);
    const before = await listing(repo);
    await expect(planPrune(repo)).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND', message: expect.stringContaining('1 used blobs are not in the index') });
    expect(await listing(repo)).toEqual(before);
  });

  it('a blob that fails authentication while repacking stops prune before any index file or used pack is touched', async () => {
    const { repo, backend, packs } = await forgotten();
    const h = { type: 'data' as const, name: packs.pa.pack.id };
    const damaged = await backend.load(h);
    damaged[20]! ^= 1; // inside a1, the used blob of the repacked pack
    await backend.remove(h);
    await backend.save(h, damaged);
    const plan = await planPrune(repo);
    const before = await listing(repo);
    await expect(executePrune(plan)).rejects.toMatchObject({ code: 'MAC_MISMATCH' });
    const after = await listing(repo);
    expect(after.index).toEqual(before.index);
    // Only the unreferenced pack went (step 1); no pack holding the copy was stored.
    expect(after.data).toEqual(before.data.filter((p) => p !== packs.pu.pack.id));
  });

  it('max-unused unlimited keeps partly used packs that are not small; 0 repacks them', async () => {
    const { repo } = await memRepo();
    // 40 kB packs with --repack-smaller-than 1k: none counts as small.
    const used = await putPack(repo, [{ data: bytes(1, 30_000) }, { data: bytes(2, 10_000) }]);
    const tree = await putPack(repo, [{ type: 'tree', data: fileTree([[used.ids[0]!]]) }]);
    await putSnapshot(repo, tree.ids[0]!);
    const opts = { repackSmallerThan: 1024 };
    expect((await planPrune(repo, { ...opts, maxUnused: { kind: 'unlimited' } })).stats.packs).toMatchObject({ repack: 0, keep: 2, partlyUsed: 1 });
    expect((await planPrune(repo, { ...opts, maxUnused: { kind: 'percent', percent: 50 } })).stats.packs).toMatchObject({ repack: 0 });
    const { plan } = await prune(repo, { ...opts, maxUnused: { kind: 'percent', percent: 0 } });
    expect(plan.stats.packs).toMatchObject({ repack: 1, keep: 1 });
    await expectValid(repo.backend);
  });

  it('repack-uncompressed compresses uncompressed data (v2); trees are compressed whenever repacked', async () => {
    const { repo } = await memRepo();
    const text = new TextEncoder().encode('compressible '.repeat(500));
    const d = await putPack(repo, [{ data: text }, { data: bytes(3, 1000) }]);
    const t = await putPack(repo, [{ type: 'tree', data: fileTree([[d.ids[0]!], [d.ids[1]!]]), compressed: false }]);
    await putSnapshot(repo, t.ids[0]!);
    const plain = await planPrune(repo);
    expect(plain.packs.repack).toEqual([t.pack.id]); // an uncompressed tree pack: always
    expect(plain.stats.bytes.uncompressed).toBe(d.size);
    const { plan } = await prune(repo, { repackUncompressed: true });
    expect([...plan.packs.repack].sort()).toEqual([d.pack.id, t.pack.id].sort());
    const after = await reopen(repo.backend);
    await after.loadIndex();
    for (const loc of after.index.entries()) expect(loc.uncompressedLength, loc.id).toBeGreaterThan(0);
    await expectValid(repo.backend);
    expect((await planPrune(after, { repackUncompressed: true })).stats.packs.repack).toBe(0);
  });

  it('works on a v1 repository, and refuses repack-uncompressed there', async () => {
    const { repo, backend, keptData } = await forgotten({ version: 1 });
    await expect(planPrune(repo, { repackUncompressed: true })).rejects.toMatchObject({ code: 'USAGE' });
    await prune(repo);
    await expectValid(backend);
    await expectKeptData(backend, keptData);
  });

  it('drops missing but unneeded packs from the index, with a warning', async () => {
    const { repo, backend, packs } = await forgotten();
    await backend.remove({ type: 'data', name: packs.pc.pack.id });
    const { plan } = await prune(repo);
    expect(plan.warnings[0]).toMatch('Missing but unneeded pack files');
    expect(plan.packs.forget).toEqual([packs.pc.pack.id]);
    await expectValid(backend);
  });

  it('reports progress through every phase it runs', async () => {
    const { repo } = await forgotten();
    const seen: PruneProgress[] = [];
    const plan = await planPrune(repo, { onProgress: (p) => seen.push(p) });
    await executePrune(plan, { onProgress: (p) => seen.push(p) });
    const phases = [...new Set(seen.map((p) => p.phase))];
    expect(phases).toEqual([
      'load-index',
      'load-snapshots',
      'find-used',
      'classify',
      'delete-unreferenced',
      'repack',
      'rewrite-index',
      'delete-index',
      'delete-packs',
      'done',
    ]);
    const last = seen[seen.length - 1]!;
    expect(last).toMatchObject({ packsRead: 2, packsRepacked: 2, packsWritten: 2, packsDeleted: 4 });
    await expect(executePrune(plan)).rejects.toThrow('executed already');
  });

  it('a plan refuses to run once the index was read again', async () => {
    const { repo } = await forgotten();
    const plan = await planPrune(repo);
    repo.dropIndex();
    await repo.loadIndex();
    await planPrune(repo); // reads it again too
    await expect(executePrune(plan)).rejects.toThrow('index changed');
  });
});

/** Counts writes (save, remove) and, from the `at`-th on, crashes or aborts instead. */
function stopAtWrite(inner: Backend, at: number, onStop: () => never): Backend & { writes: number } {
  const hit = () => {
    if (be.writes++ >= at) onStop();
  };
  const be: Backend & { writes: number } = {
    writes: 0,
    location: inner.location,
    connections: inner.connections,
    load: (h, o) => inner.load(h, o),
    stat: (h, o) => inner.stat(h, o),
    list: (t, o) => inner.list(t, o),
    close: () => inner.close(),
    save: (h, d, o) => (hit(), inner.save(h, d, o)),
    remove: (h, o) => (hit(), inner.remove(h, o)),
  };
  return be;
}

describe('prune stopped at every write', () => {
  beforeAll(initEngine);

  it.each(['crash', 'abort'] as const)('%s: the repository stays valid, and the next prune finishes the job', async (mode) => {
    // One full run counts the writes.
    const probe = await forgotten();
    const counting = stopAtWrite(probe.backend, Infinity, () => {
      throw new Error('unreachable');
    });
    await prune(await reopen(counting));
    const total = counting.writes;
    expect(total).toBe(11); // delete 1 unreferenced pack, store 2 packs and 1 index file, delete 4 index files and 3 packs
    for (let at = 0; at < total; at++) {
      const inner = new MemoryBackend();
      const { keptData } = await forgotten({ backend: inner });
      const controller = new AbortController();
      let stopped = false;
      const be = stopAtWrite(inner, at, () => {
        stopped = true;
        if (mode === 'abort') controller.abort();
        throw new CairnError(mode === 'abort' ? 'ABORTED' : 'BACKEND_IO', `stopped at write ${at}`);
      });
      // A crashed process writes nothing more: every later write fails too (failed pack
      // deletes only warn, so a crash there may still end "successfully"). An abort throws.
      const run = prune(await reopen(be), { signal: controller.signal });
      if (mode === 'abort') await expect(run, `write ${at}`).rejects.toMatchObject({ code: 'ABORTED' });
      else await run.catch(() => {});
      expect(stopped).toBe(true);
      await expectValid(inner, true);
      await prune(await reopen(inner));
      await expectValid(inner);
      await expectKeptData(inner, keptData);
      const again = (await planPrune(await reopen(inner))).stats;
      expect(again.packs, `write ${at}`).toMatchObject({ repack: 0, remove: 0, unreferenced: 0 });
      expect(again.blobs.unused + again.blobs.duplicate, `write ${at}`).toBe(0);
    }
  });
});
