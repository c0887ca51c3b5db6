// Folder times through the real archiver: a folder gets the time of the backup that first saw
// it as it is, keeps it (and its tree blob) while its entries keep their names, and takes a
// later backup's time when an entry is added; several picked folders go into one snapshot.
import { beforeAll, describe, expect, it } from 'vitest';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { MemoryBackend } from '../../core/backend/mem';
import { Repository } from '../../core/repository/repository';
import { TEST_KDF } from '../../test/helpers/test-kdf';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { decodeTree, type Node } from '../../core/data';
import { GoTime } from '../../core/data/go-time';
import type { ID } from '../../core/id';
import { lookupPath } from '../../core/walker';
import { fileListSource } from './file-list-source';
import { browserFileReader } from './file-reader';
import { withFolderTimes, type PreviousFolders } from './folder-times';
import { multiSource } from './multi-source';

const T0 = Date.UTC(2024, 2, 1, 12);
const enc = (s: string) => new TextEncoder().encode(s);

function pick(entries: [string, string][]) {
  const files = entries.map(([p, d]) => new File([enc(d)], p.split('/').pop()!, { lastModified: T0 }));
  return fileListSource(
    files,
    entries.map(([p]) => p),
  );
}

/** The parent snapshot's folders, read straight from the repository. */
function previousIn(repo: Repository, root: ID): PreviousFolders {
  const tree = async (id: ID) => decodeTree(await repo.loadBlob('tree', id));
  return async (path) => {
    let id = root;
    let node: Node | undefined;
    for (const name of path.split('/').filter(Boolean)) {
      node = (await tree(id)).nodes.find((n) => n.name === name);
      if (!node?.subtree) return undefined;
      id = node.subtree;
    }
    return node && { mtime: node.mtime, names: (await tree(id)).nodes.map((n) => n.name) };
  };
}

describe('folder times', () => {
  beforeAll(() => initZstdNode());

  it('are the first backup’s, kept while a folder is unchanged, renewed when an entry is added', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const pool = inProcessPool({ saver: be, reader: browserFileReader });
    const tree: [string, string][] = [
      ['Docs/a.txt', 'a'],
      ['Docs/sub/b.txt', 'b'],
      ['Docs/other/c.txt', 'c'],
    ];
    const t1 = GoTime.fromMillis(Date.UTC(2025, 0, 1), 0);
    const s1 = pick(tree);
    const r1 = await backup(repo, withFolderTimes(s1, t1, undefined), pool, { targets: [s1.target], hostname: 'h', time: t1 });
    const docs1 = await lookupPath(repo, r1.snapshot.tree, ['Docs']);
    expect(docs1!.mtime.unixMillis()).toBe(t1.unixMillis());
    expect((await lookupPath(repo, r1.snapshot.tree, ['Docs', 'sub']))!.mtime.unixMillis()).toBe(t1.unixMillis());

    // The same folder again: every folder keeps its time, so its tree is the same blob.
    const t2 = GoTime.fromMillis(Date.UTC(2025, 0, 2), 0);
    const s2 = pick(tree);
    const r2 = await backup(repo, withFolderTimes(s2, t2, previousIn(repo, r1.snapshot.tree)), pool, { targets: [s2.target], hostname: 'h', time: t2 });
    expect(r2.snapshot.tree).toBe(r1.snapshot.tree);
    expect(r2.summary.dirsUnmodified).toBe(3); // Docs, sub, other (the snapshot's root is not counted, as in restic)
    expect(r2.summary.treeBlobs).toBe(0);

    // A file added to sub/: sub and Docs above it… only sub's entries changed, so only sub's time.
    const t3 = GoTime.fromMillis(Date.UTC(2025, 0, 3), 0);
    const s3 = pick([...tree, ['Docs/sub/new.txt', 'n']]);
    const r3 = await backup(repo, withFolderTimes(s3, t3, previousIn(repo, r2.snapshot.tree)), pool, { targets: [s3.target], hostname: 'h', time: t3 });
    const at = async (...p: string[]) => (await lookupPath(repo, r3.snapshot.tree, p))!.mtime.unixMillis();
    expect(await at('Docs', 'sub')).toBe(t3.unixMillis());
    expect(await at('Docs')).toBe(t1.unixMillis());
    expect(await at('Docs', 'other')).toBe(t1.unixMillis());
  });

  it('a folder the parent stored with the Unix epoch gets this backup’s time', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const pool = inProcessPool({ saver: be, reader: browserFileReader });
    const s1 = pick([['Docs/a.txt', 'a']]);
    const r1 = await backup(repo, s1, pool, { targets: [s1.target], hostname: 'h' }); // no folder times: the epoch
    expect((await lookupPath(repo, r1.snapshot.tree, ['Docs']))!.mtime.unixMillis()).toBe(0);
    const t = GoTime.fromMillis(Date.UTC(2025, 0, 5), 0);
    const s2 = pick([['Docs/a.txt', 'a']]);
    const r2 = await backup(repo, withFolderTimes(s2, t, previousIn(repo, r1.snapshot.tree)), pool, { targets: [s2.target], hostname: 'h' });
    expect((await lookupPath(repo, r2.snapshot.tree, ['Docs']))!.mtime.unixMillis()).toBe(t.unixMillis());
  });

  it('several picked folders make one snapshot; two of one name are refused', async () => {
    const be = new MemoryBackend();
    const repo = await Repository.init(be, 'pw', { owner: { username: 'u', hostname: 'h' }, kdf: TEST_KDF });
    const src = multiSource([pick([['Docs/a.txt', 'a']]), pick([['Photos/p.jpg', 'p']])]);
    const r = await backup(repo, src, inProcessPool({ saver: be, reader: browserFileReader }), { targets: src.targets, hostname: 'h' });
    expect(r.snapshot.paths).toEqual(['/Docs', '/Photos']);
    expect(await lookupPath(repo, r.snapshot.tree, ['Photos', 'p.jpg'])).toMatchObject({ type: 'file', size: 1 });
    expect(() => multiSource([pick([['Docs/a.txt', 'a']]), pick([['Docs/b.txt', 'b']])])).toThrow(/two folders are named “Docs”/);
  });
});
