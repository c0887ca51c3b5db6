import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine } from '../../test/helpers/mem-repo';
import { damage, fileHashes, GENERATIONS, packOf, sha256, threeBackups } from '../../test/helpers/backups';
import { check } from '../check';
import { loadSnapshot, listSnapshots } from '../repository/snapshots';
import { Repository } from '../repository/repository';
import { loadTree, lookupPath } from '../walker';
import type { Printer } from '../progress/printer';
import { repairIndex, repairPacks, repairSnapshots } from '.';

/** The same repository opened afresh (nothing of the old in-memory index kept). */
const reopen = (r: Repository) => new Repository(r.backend, r.key, r.keyID, r.config);

function recorder(): Printer & { lines: string[] } {
  const lines: string[] = [];
  return { lines, p: (l) => lines.push(l), e: (l) => lines.push('E ' + l), v: (l) => lines.push('V ' + l) };
}

const kinds = (r: Awaited<ReturnType<typeof check>>) => [...new Set(r.problems.filter((p) => !p.hint).map((p) => p.kind))].sort();

describe('repair index', () => {
  beforeAll(initEngine);

  it('re-indexes the packs of a deleted index file; nothing else changes', async () => {
    const { repo, backend } = await threeBackups();
    const [first] = await repo.listIDs('index');
    await backend.remove({ type: 'index', name: first! });
    expect(kinds(await check(reopen(repo)))).toContain('blob');
    const pr = recorder();
    const r = await repairIndex(reopen(repo), { printer: pr });
    expect(r.indexed.length).toBeGreaterThan(0);
    expect(r.incomplete).toEqual([]);
    expect(pr.lines.filter((l) => l.startsWith('E adding pack file to index'))).toHaveLength(r.indexed.length);
    const after = await check(reopen(repo), { readData: true });
    expect(after.problems).toEqual([]);
  });

  it('drops a deleted pack from the index, and an unreadable index file', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[2]!);
    const gone = await packOf(repo, sn.tree, 'd/two.bin');
    await backend.remove({ type: 'data', name: gone.packID });
    const junk = await repo.saveJSON('index', '{"packs":');
    const pr = recorder();
    const r = await repairIndex(reopen(repo), { printer: pr });
    expect(r.removedFromIndex).toEqual([gone.packID]);
    expect(r.indexFilesRemoved).toContain(junk);
    expect(pr.lines).toContain(`E removing not found pack file ${gone.packID}`);
    expect(pr.lines.some((l) => l.startsWith(`E removing invalid index ${junk}`))).toBe(true);
    const after = await check(reopen(repo));
    // The index is right now; only the snapshots still name the lost blob.
    expect(kinds(after)).toEqual(['blob']);
    expect(after.problems.every((p) => p.blob === gone.blob)).toBe(true);
  });

  it('--read-all-packs replaces every index file with what the pack headers say', async () => {
    const { repo } = await threeBackups();
    const old = await repo.listIDs('index');
    const r = await repairIndex(reopen(repo), { readAllPacks: true });
    expect(r.indexed.sort()).toEqual((await repo.listIDs('data')).sort());
    expect(r.indexFilesRemoved.sort()).toEqual(old.sort());
    expect((await repo.listIDs('index')).some((id) => old.includes(id))).toBe(false);
    expect((await check(reopen(repo), { readData: true })).problems).toEqual([]);
  });

  it('leaves a pack whose header cannot be read out of the index (incomplete)', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[1]!);
    const { packID } = await packOf(repo, sn.tree, 'd/two.bin');
    await damage(backend, { type: 'data', name: packID }, (b) => b.subarray(0, b.length - 10));
    const r = await repairIndex(reopen(repo));
    expect(r.incomplete).toEqual([packID]);
    const after = await check(reopen(repo));
    expect(after.problems.find((p) => p.pack === packID)?.kind).toBe('pack-unreferenced');
  });
});

describe('repair packs', () => {
  beforeAll(initEngine);

  it('salvages the intact blobs of a pack with a flipped byte and removes it', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[2]!);
    const hit = await packOf(repo, sn.tree, 'd/sub/three.bin');
    const blobsInPack = [...repo.index.entries()].filter((e) => e.packID === hit.packID).length;
    await damage(backend, { type: 'data', name: hit.packID }, (b) => {
      b[hit.offset + 40]! ^= 1;
      return b;
    });
    const pr = recorder();
    const r = await repairPacks(reopen(repo), new Set([hit.packID]), { printer: pr });
    expect(r.lost.map((l) => l.blob.id)).toEqual([hit.blob]);
    expect(r.salvaged).toBe(blobsInPack - 1);
    expect(r.removedPacks).toEqual([hit.packID]);
    expect(pr.lines.some((l) => l.startsWith(`E failed to load blob ${hit.blob}`))).toBe(true);
    expect(await repo.listIDs('data')).not.toContain(hit.packID);
    const after = await check(reopen(repo), { readData: true });
    expect(kinds(after)).toEqual(['blob']); // only the lost blob, still referenced
    expect(after.problems.filter((p) => !p.hint).every((p) => p.blob === hit.blob)).toBe(true);
  });

  it('salvages what lies before the cut of a truncated pack', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[2]!);
    const hit = await packOf(repo, sn.tree, 'd/sub/three.bin');
    const entries = [...repo.index.entries()].filter((e) => e.packID === hit.packID).sort((a, b) => a.offset - b.offset);
    const cut = entries[entries.length - 1]!.offset + 10; // inside the last blob
    await damage(backend, { type: 'data', name: hit.packID }, (b) => b.slice(0, cut));
    const r = await repairPacks(reopen(repo), new Set([hit.packID]));
    expect(r.lost.map((l) => l.blob.id)).toEqual([entries[entries.length - 1]!.id]);
    expect(r.salvaged).toBe(entries.length - 1);
  });
});

describe('repair snapshots', () => {
  beforeAll(initEngine);

  it('drops missing chunks from files and fixes their size; the rest restores; --forget removes the old snapshot', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[2]!);
    const gone = await packOf(repo, sn.tree, 'd/two.bin');
    await backend.remove({ type: 'data', name: gone.packID });
    await repairIndex(reopen(repo));
    const pr = recorder();
    const fresh = reopen(repo);
    const changed = await repairSnapshots(fresh, await listSnapshots(fresh), { forget: true, printer: pr });
    expect(changed).toBe(2); // g1 and g2 hold two.bin
    expect(pr.lines).toContain('  file "/d/two.bin": removed missing content');
    expect((await check(reopen(repo), { readData: true })).problems.filter((p) => !p.hint)).toEqual([]);
    const after = await listSnapshots(reopen(repo));
    expect(after.map((e) => e.snapshot.tags)).toEqual([['g0'], ['g1'], ['g2']]); // forgotten: no "repaired" tag
    expect(
      after
        .filter((e) => e.snapshot.original)
        .map((e) => e.snapshot.original)
        .sort(),
    ).toEqual([snapshots[1], snapshots[2]].sort());
    const r = reopen(repo);
    await r.loadIndex();
    const files = await fileHashes(r, after[2]!.snapshot.tree);
    expect(files.get('d/one.txt')).toBe(sha256((GENERATIONS[2]!['one.txt'] as { data: Uint8Array }).data));
    expect(files.get('d/sub/three.bin')).toBe(sha256((GENERATIONS[2]!.sub as { 'three.bin': { data: Uint8Array } })['three.bin'].data));
    const two = await lookupPath(r, after[2]!.snapshot.tree, ['d', 'two.bin']);
    expect(two?.content).toEqual([]);
    expect(two?.size ?? 0).toBe(0);
  });

  it('turns a directory whose tree is gone into an empty one; a snapshot without its root is removed', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[2]!);
    const sub = (await lookupPath(repo, sn.tree, ['d', 'sub']))!.subtree!;
    const root0 = (await loadSnapshot(repo, snapshots[0]!)).tree;
    // Drop both trees from the index (as repair index would after their packs were lost).
    const idx = await repo.listIDs('index');
    const r0 = reopen(repo);
    await r0.loadIndex();
    const keep = [...r0.index.entries()].filter((e) => !(e.type === 'tree' && (e.id === sub || e.id === root0)));
    const byPack = new Map<string, typeof keep>();
    for (const e of keep) byPack.set(e.packID, [...(byPack.get(e.packID) ?? []), e]);
    await r0.saveIndex([...byPack].map(([id, blobs]) => ({ id, blobs })));
    for (const id of idx) await backend.remove({ type: 'index', name: id });
    const pr = recorder();
    const fresh = reopen(repo);
    const changed = await repairSnapshots(fresh, await listSnapshots(fresh), { printer: pr });
    expect(changed).toBe(2);
    expect(pr.lines).toContain('  dir "/d/sub": replaced with empty directory');
    expect(pr.lines).toContain('  dir "/": not readable');
    expect(pr.lines).toContain(`removed empty snapshot ${snapshots[0]!.slice(0, 8)}`);
    const after = await listSnapshots(reopen(repo));
    expect(after.map((e) => e.id)).not.toContain(snapshots[0]);
    const repaired = after.find((e) => e.snapshot.original === snapshots[2])!;
    expect(repaired.snapshot.tags).toEqual(['g2', 'repaired']);
    const r = reopen(repo);
    await r.loadIndex();
    const newSub = (await lookupPath(r, repaired.snapshot.tree, ['d', 'sub']))!;
    expect(newSub.type).toBe('dir');
    expect((await loadTree(r, newSub.subtree!)).nodes).toEqual([]);
    expect((await fileHashes(r, repaired.snapshot.tree)).get('d/one.txt')).toBeDefined();
  });

  it('--dry-run says what it would do and writes nothing', async () => {
    const { repo, backend, snapshots } = await threeBackups();
    const sn = await loadSnapshot(repo, snapshots[2]!);
    await backend.remove({ type: 'data', name: (await packOf(repo, sn.tree, 'd/two.bin')).packID });
    await repairIndex(reopen(repo));
    const { dryRunBackend } = await import('../backend/dry-run');
    const before = { snaps: await repo.listIDs('snapshots'), data: await repo.listIDs('data'), index: await repo.listIDs('index') };
    const dry = new Repository(dryRunBackend(backend), repo.key, repo.keyID, repo.config);
    const pr = recorder();
    expect(await repairSnapshots(dry, await listSnapshots(dry), { dryRun: true, forget: true, printer: pr })).toBe(2);
    expect(pr.lines.filter((l) => l === 'would save new snapshot')).toHaveLength(2);
    expect(pr.lines.filter((l) => l === 'would remove old snapshot')).toHaveLength(2);
    expect({ snaps: await repo.listIDs('snapshots'), data: await repo.listIDs('data'), index: await repo.listIDs('index') }).toEqual(before);
  });
});
