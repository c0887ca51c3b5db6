import { describe, expect, it } from 'vitest';
import { CairnError } from '../errors';
import type { Node } from '../data';
import { GoTime } from '../data/go-time';
import { ProgressTracker } from '../progress';
import { BackupStats, type CompletedItem } from './backup-stats';
import { FileArchiver } from './file-archiver';
import type { FileJob, FileSaved } from './file-saver';
import { LazyPool } from './lazy-pool';
import type { PoolFactory } from './pool';
import type { SourceEntry } from './source';
import { WarningLog } from './warnings';

const T = GoTime.fromMillis(1_700_000_000_000);
const blob = (c: string) => c.repeat(64);

function entry(name: string, size: number, more: Partial<SourceEntry> = {}): SourceEntry {
  return { path: `/src/${name}`, size, ref: name, node: { name, type: 'file', mode: 0o644, mtime: T, atime: T, ctime: T, uid: 0, gid: 0, size }, ...more };
}

const parentNode = (e: SourceEntry, content: string[]): Node => ({ ...e.node, content, size: e.size });

function setUp(save: (job: FileJob) => Promise<FileSaved>, known: string[] = [], force = false) {
  const jobs: FileJob[] = [];
  let poolStarts = 0;
  const factory: PoolFactory = async () => {
    poolStarts++;
    return { concurrency: 2, save: (job) => (jobs.push(job), save(job)), flush: async () => {}, close: async () => {} };
  };
  const progress = new ProgressTracker('x');
  const stats = new BackupStats();
  const warnings = new WarningLog(progress);
  const items: CompletedItem[] = [];
  const files = new FileArchiver({
    hasData: (id) => known.includes(id),
    pool: new LazyPool(factory, {} as never, { claim: () => true, packSaved: () => {} }),
    stats,
    progress,
    warn: warnings.warn,
    force,
    onItem: (i) => items.push(i),
  });
  return { files, jobs, stats, warnings, items, starts: () => poolStarts };
}

const saved = (size: number, changed = false): FileSaved => ({ content: [blob('c')], size, blobsNew: 1, bytesNew: size, bytesStored: size + 32, changed });

describe('FileArchiver', () => {
  it('reuses an unchanged file whose blobs are all indexed, without starting a saver', async () => {
    const t = setUp(async () => saved(5), [blob('a')]);
    const e = entry('same', 5);
    let started = 0;
    const node = await t.files.save(e, parentNode(e, [blob('a')]), () => started++);
    expect(node).toMatchObject({ name: 'same', content: [blob('a')], size: 5 });
    expect(t.starts()).toBe(0);
    expect(started).toBe(0); // the walk marks it done itself
    expect(t.stats.files.unmodified).toBe(1);
    expect(t.items).toEqual([expect.objectContaining({ path: '/src/same', type: 'file', action: 'unchanged' })]);
  });

  it('reads a file again when the parent lists a blob the index lacks, or when forced', async () => {
    for (const [known, force] of [[[], false] as const, [[blob('a')], true] as const]) {
      const t = setUp(async () => saved(5), [...known], force);
      const e = entry('f', 5);
      let started = 0;
      const node = await t.files.save(e, parentNode(e, [blob('a')]), () => started++);
      expect(node!.content).toEqual([blob('c')]);
      expect(started).toBe(1);
      expect(t.stats.files.changed).toBe(1);
      expect(t.stats.filesRead).toBe(1);
      expect(t.items[0]).toMatchObject({ action: 'modified', stats: { dataBlobs: 1, dataSize: 5, dataSizeInRepo: 37 } });
    }
  });

  it('records a file that grew while read as read, with a SOURCE_CHANGED warning', async () => {
    const t = setUp(async () => saved(9, true));
    const node = await t.files.save(entry('grows', 5), undefined, () => {});
    expect(node).toMatchObject({ size: 9 });
    expect(t.warnings.list.map((w) => w.code)).toEqual(['SOURCE_CHANGED']);
    expect(t.stats.files.new).toBe(1);
    expect(t.stats.bytes).toBe(9);
  });

  it('leaves out a file that cannot be opened or read (SOURCE_READ, NOT_FOUND), and fails on anything else', async () => {
    const unreadable = setUp(async () => Promise.reject(new CairnError('SOURCE_READ', 'permission denied')));
    expect(await unreadable.files.save(entry('a', 1), undefined, () => {})).toBeUndefined();
    const cannotOpen = setUp(async () => saved(1));
    const opening = entry('b', 1, { open: async () => Promise.reject(new CairnError('NOT_FOUND', 'gone')) });
    expect(await cannotOpen.files.save(opening, undefined, () => {})).toBeUndefined();
    expect(cannotOpen.starts()).toBe(0);
    expect([...unreadable.warnings.list, ...cannotOpen.warnings.list].map((w) => w.code)).toEqual(['SOURCE_READ', 'NOT_FOUND']);
    const broken = setUp(async () => Promise.reject(new CairnError('BACKEND_IO', 'disk on fire')));
    await expect(broken.files.save(entry('c', 1), undefined, () => {})).rejects.toThrow('disk on fire');
  });

  it('a stale browser File is read once more through reopen()', async () => {
    let calls = 0;
    const t = setUp(async (job) => {
      if (calls++ === 0) throw new CairnError('SOURCE_READ', 'stale', { detail: { domError: 'NotReadableError' } });
      expect(job.ref).toBe('fresh');
      return saved(3);
    });
    const node = await t.files.save(entry('f', 3, { reopen: async () => 'fresh' }), undefined, () => {});
    expect(node!.size).toBe(3);
    expect(t.jobs.map((j) => j.ref)).toEqual(['f', 'fresh']);
  });
});
