import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine } from '../../test/helpers/mem-repo';
import { threeBackups } from '../../test/helpers/backups';
import { decodeIndex } from '../index/index-file';
import { rewriteIndexes, saveIndexFiles } from './index-rewrite';
import { INDEX_MAX_BLOBS } from './blob-uploader';

describe('rewriteIndexes', () => {
  beforeAll(initEngine);

  const packsListed = async (repo: Awaited<ReturnType<typeof threeBackups>>['repo']) => {
    const out: string[] = [];
    for (const id of await repo.listIDs('index')) out.push(...decodeIndex(await repo.loadJSON('index', id), id).map((p) => p.id));
    return out.sort();
  };

  it('leaves untouched files alone, rewrites those listing an excluded pack, removes them after', async () => {
    const { repo } = await threeBackups();
    const before = await repo.listIDs('index');
    const all = await packsListed(repo);
    const victimIndex = before[0]!;
    const victim = decodeIndex(await repo.loadJSON('index', victimIndex), victimIndex)[0]!.id;
    const r = await rewriteIndexes(repo, { exclude: new Set([victim]) });
    expect(r.removed).toEqual([victimIndex]);
    expect(await packsListed(repo)).toEqual(all.filter((p) => p !== victim));
    for (const id of before.slice(1)) expect(await repo.listIDs('index')).toContain(id);
  });

  it('lists a pack that two files list only once', async () => {
    const { repo } = await threeBackups();
    const [first] = await repo.listIDs('index');
    const dup = await repo.saveIndex(decodeIndex(await repo.loadJSON('index', first!), first));
    const all = await packsListed(repo);
    expect(new Set(all).size).toBeLessThan(all.length);
    const r = await rewriteIndexes(repo, { exclude: new Set() });
    expect(r.removed).toHaveLength(1);
    expect([first, dup]).toContain(r.removed[0]);
    const after = await packsListed(repo);
    expect(after).toEqual([...new Set(all)].sort());
  });

  it('splits what it writes into files of at most INDEX_MAX_BLOBS blobs', async () => {
    const { repo } = await threeBackups();
    const blob = (i: number) => ({ type: 'data' as const, id: i.toString(16).padStart(64, '0'), offset: i * 40, length: 40, uncompressedLength: 0 });
    const packs = [0, 1, 2].map((p) => ({
      id: (p + 1).toString(16).padStart(64, 'f'),
      blobs: Array.from({ length: INDEX_MAX_BLOBS / 2 + 1 }, (_, i) => blob(p * 100_000 + i)),
    }));
    expect(await saveIndexFiles(repo, packs)).toHaveLength(3);
  });
});
