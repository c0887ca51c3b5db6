import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine } from '../../test/helpers/mem-repo';
import { fileHashes, threeBackups } from '../../test/helpers/backups';
import { check } from '../check';
import { encodeSnapshot } from '../data/snapshot';
import { hashID } from '../id';
import { listSnapshots, loadSnapshot } from '../repository/snapshots';
import { Repository } from '../repository/repository';
import { BlobUploader } from '../repository/blob-uploader';
import { PackerManager } from '../repository/packer-manager';
import { encodeBlob } from '../repository/blob-codec';
import type { IndexPack } from '../index/index-file';
import type { Printer } from '../progress/printer';
import { GoTime } from '../data/go-time';
import { rewriteSnapshots, TreeRewriter } from '.';

const reopen = (r: Repository) => new Repository(r.backend, r.key, r.keyID, r.config);
const quiet: Printer = { p: () => {}, e: () => {}, v: () => {} };

describe('rewrite', () => {
  beforeAll(initEngine);

  it('drops excluded entries into new trees; the new snapshot records the old one; untouched snapshots stay', async () => {
    const { repo, snapshots } = await threeBackups();
    const excluded: string[] = [];
    const lines: string[] = [];
    const pr: Printer = { ...quiet, p: (l) => lines.push(l) };
    const n = await rewriteSnapshots(repo, await listSnapshots(repo), { exclude: (p) => p.endsWith('.bin'), onExcluded: (p) => excluded.push(p), printer: pr });
    expect(n).toBe(2); // g0 has no .bin file: left alone
    expect(excluded.sort()).toEqual(['/d/sub/three.bin', '/d/two.bin', '/d/two.bin']);
    const all = await listSnapshots(reopen(repo));
    expect(all).toHaveLength(5);
    const g2 = all.find((e) => e.snapshot.original === snapshots[2])!;
    expect(g2.snapshot.tags).toEqual(['g2', 'rewrite']);
    expect(g2.snapshot.summary!.totalFilesProcessed).toBe(1);
    expect(g2.snapshot.summary!.totalBytesProcessed).toBe(200);
    const fresh = reopen(repo);
    await fresh.loadIndex();
    expect([...(await fileHashes(fresh, g2.snapshot.tree)).keys()]).toEqual(['d/one.txt']);
    expect(lines).toContain(`saved new snapshot ${g2.id.slice(0, 8)}`);
    expect((await check(fresh, { readData: true })).problems).toEqual([]);
  });

  it('a rewrite that excludes nothing changes nothing; --forget removes the rewritten snapshot', async () => {
    const { repo, snapshots } = await threeBackups();
    expect(await rewriteSnapshots(repo, await listSnapshots(repo), { exclude: () => false, printer: quiet })).toBe(0);
    expect((await repo.listIDs('snapshots')).sort()).toEqual([...snapshots].sort());
    const before = await repo.listIDs('data');
    const only = [{ id: snapshots[1]!, snapshot: await loadSnapshot(repo, snapshots[1]!) }];
    expect(await rewriteSnapshots(repo, only, { exclude: (p) => p === '/d/two.bin', forget: true, printer: quiet })).toBe(1);
    const ids = await repo.listIDs('snapshots');
    expect(ids).not.toContain(snapshots[1]);
    expect(ids).toHaveLength(3);
    const data = await repo.listIDs('data');
    // g1 without two.bin is g0's tree exactly: found in the index, nothing stored.
    expect(data).toEqual(before);
    const made = await loadSnapshot(
      repo,
      ids.find((i) => !snapshots.includes(i))!,
    );
    expect(made.tags).toEqual(['g1']);
    expect(made.tree).toBe((await loadSnapshot(repo, snapshots[0]!)).tree);
  });

  it('--new-host and --new-time alone keep the tree', async () => {
    const { repo, snapshots } = await threeBackups();
    const only = [{ id: snapshots[0]!, snapshot: await loadSnapshot(repo, snapshots[0]!) }];
    const time = GoTime.parse('2020-01-02T03:04:05+01:00');
    expect(await rewriteSnapshots(repo, only, { newHost: 'other', newTime: time, printer: quiet })).toBe(1);
    const made = (await listSnapshots(reopen(repo))).find((e) => e.snapshot.original === snapshots[0])!;
    expect(made.snapshot.hostname).toBe('other');
    expect(made.snapshot.time.equal(time)).toBe(true);
    expect(made.snapshot.tree).toBe(only[0]!.snapshot.tree);
  });

  it('refuses a tree that does not encode back to its bytes (fields it would lose)', async () => {
    const { repo } = await threeBackups();
    const T = '"mtime":"2024-01-01T00:00:00Z","atime":"2024-01-01T00:00:00Z","ctime":"2024-01-01T00:00:00Z","uid":0,"gid":0';
    const tree = new TextEncoder().encode(`{"nodes":[{"name":"f","type":"file",${T},"content":[],"future_field":1}]}\n`);
    const saved: IndexPack[] = [];
    const pm = new PackerManager({ key: repo.key, saver: repo.backend, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
    const enc = await encodeBlob(repo.key, 'tree', tree, 2, 'auto');
    const treeID = await hashID(tree);
    await pm.add('tree', treeID, enc.sealed, enc.uncompressedLength);
    await pm.flush();
    await repo.saveIndex(saved);
    const id = await repo.saveJSON('snapshots', encodeSnapshot({ time: GoTime.parse('2024-01-01T00:00:00Z'), tree: treeID, paths: ['/x'] }));
    const fresh = reopen(repo);
    const entry = { id, snapshot: await loadSnapshot(fresh, id) };
    await expect(rewriteSnapshots(fresh, [entry], { exclude: () => false, printer: quiet })).rejects.toThrow(
      /unable to rewrite snapshot ID .*cannot encode tree at "\/" without losing information/,
    );
    // repair's rewriter allows it (the unknown field is dropped)
    await fresh.loadIndex();
    const rw = new TreeRewriter({ allowUnstableSerialization: true });
    const up = new BlobUploader(fresh);
    const out = await rw.rewrite(fresh, up, '/', treeID);
    await up.finish();
    expect(out).not.toBe(treeID);
  });
});
