// The offline cache's background fill (./offline-fill.ts) on an in-memory repository: what it
// reads, in which order, what it records, and that it steps aside for the page.

import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { MemSource, type MemDir } from '../../test/helpers/mem-source';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import type { Backend, FileType } from '../../core/backend/backend';
import type { ID } from '../../core/id';
import { Repository } from '../../core/repository/repository';
import type { OfflineCacheProgress } from '../api';
import { fillOfflineCache, type FillHost, type FillRecords } from './offline-fill';
import { Session } from './session';
import { memoryOutlineStore } from './name-index';

const text = (s: string) => ({ data: new TextEncoder().encode(s) });

/** Two snapshots of a small tree (the second with one folder more), opened afresh (no index in memory) through a backend that logs its loads. */
async function repository() {
  const { repo, backend } = await memRepo();
  const first: MemDir = { a: { b: { 'x.txt': text('x') } }, 'y.txt': text('y') };
  const second: MemDir = { ...first, c: { 'z.txt': text('z') } };
  const ids: ID[] = [];
  for (const root of [first, second]) {
    const src = new MemSource({ d: root });
    ids.push((await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'h', targets: ['/d'] })).id);
  }
  const loads: FileType[] = [];
  const logged = new Proxy(backend, {
    get(t, p) {
      if (p === 'load') return (...a: Parameters<Backend['load']>) => (loads.push(a[0].type), t.load(...a));
      const v = (t as unknown as Record<PropertyKey, unknown>)[p];
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
  const fresh = await Repository.open(logged, TEST_PASSWORD);
  const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo: fresh, offline: false, remembered: false });
  return { s, ids, loads };
}

function memRecords(): FillRecords & { marked: ID[] } {
  const done = new Set<ID>();
  const marked: ID[] = [];
  return {
    marked,
    complete: async () => new Set(done),
    markComplete: async (_repo, id) => {
      done.add(id);
      marked.push(id);
    },
  };
}

function host(s: Session, events: string[], foregroundIdle: () => Promise<void> = async () => {}): FillHost {
  return {
    repo: s.repo,
    snapshots: (sig) => s.snapshots(sig),
    backgroundTree: async (id, sig) => {
      events.push(`tree ${id.slice(0, 8)}`);
      return s.tree(id, sig);
    },
    foregroundIdle,
    settled: async () => {},
  };
}

describe('the offline cache fill', () => {
  beforeAll(initEngine);

  it('stops with QUOTA_EXCEEDED once the browser refuses room, keeping the snapshots filled before', async () => {
    const { s, ids } = await repository();
    const records = memRecords();
    const events: string[] = [];
    const quota = new DOMException('no room', 'QuotaExceededError');
    // The newest snapshot's five trees fit; a write of the older one's is refused.
    const h = { ...host(s, events), refused: () => (events.length > 5 ? quota : undefined) };
    const stopped = fillOfflineCache(h, records, async () => {}, new AbortController().signal);
    await expect(stopped).rejects.toMatchObject({ code: 'QUOTA_EXCEEDED', detail: { reason: 'offline-cache-full', snapshotsDone: 1, snapshots: 2 } });
    await expect(stopped).rejects.toThrow(/1 of 2 snapshots are kept/);
    expect(records.marked).toEqual([ids[1]]);
  });

  it('walks every tree once, newest snapshot first, records each snapshot when all its trees are read, and reports each step', async () => {
    const { s, ids } = await repository();
    const records = memRecords();
    const events: string[] = [];
    const seen: OfflineCacheProgress[] = [];
    const last = await fillOfflineCache(host(s, events), records, async (p) => void seen.push(p), new AbortController().signal);
    expect(records.marked).toEqual([ids[1], ids[0]]);
    // Second snapshot: root, d, a, b, c; the first adds only its own root and d (a and b are shared).
    expect(events).toHaveLength(7);
    expect(new Set(events).size).toBe(7);
    expect(last).toMatchObject({ phase: 'done', snapshots: 2, snapshotsDone: 2, folders: 7, indexFiles: 2, indexTotal: 2 }); // an index file per backup
    // The index first, then the trees; counts only grow.
    const order = { index: 0, trees: 1, done: 2 };
    for (const [a, b] of seen.slice(1).map((p, i) => [seen[i]!, p] as const)) {
      expect(order[b.phase]).toBeGreaterThanOrEqual(order[a.phase]);
      expect(b.folders).toBeGreaterThanOrEqual(a.folders);
      expect(b.snapshotsDone).toBeGreaterThanOrEqual(a.snapshotsDone);
    }
    expect(seen.at(-1)).toMatchObject({ phase: 'trees', snapshotsDone: 2, folders: 7 });
  });

  it('resumes: recorded snapshots are not walked again, and with all recorded it reads nothing but the snapshot list', async () => {
    const { s, ids, loads } = await repository();
    const records = memRecords();
    await records.markComplete(s.repo.config.id, ids[1]!);
    records.marked.length = 0;
    const events: string[] = [];
    const p = await fillOfflineCache(host(s, events), records, async () => {}, new AbortController().signal);
    expect(records.marked).toEqual([ids[0]]);
    expect(p).toMatchObject({ phase: 'done', snapshots: 2, snapshotsDone: 2 });
    expect(events).toHaveLength(4); // the first snapshot's root, d, a, b

    const { s: again, loads: loadsAgain } = await repository();
    const all = memRecords();
    for (const id of (await again.snapshots()).map((e) => e.id)) await all.markComplete(again.repo.config.id, id);
    loadsAgain.length = 0;
    const none: string[] = [];
    expect(await fillOfflineCache(host(again, none), all, async () => {}, new AbortController().signal)).toMatchObject({ phase: 'done', snapshotsDone: 2 });
    expect(none).toEqual([]);
    expect(loadsAgain.filter((t) => t !== 'snapshots')).toEqual([]); // no index, no pack
    expect(loads).toContain('index');
  });

  it("walks snapshots recorded before search's outlines were kept once more, for their outlines; then reads nothing", async () => {
    const { s, ids } = await repository();
    const records = memRecords();
    for (const id of ids) await records.markComplete(s.repo.config.id, id);
    const store = memoryOutlineStore();
    const withOutlines = new Session({ loc: s.loc, locationKey: s.locationKey, repo: s.repo, offline: false, remembered: false, outlines: store });
    const h = (events: string[]) => ({ ...host(withOutlines, events), outlines: withOutlines.outlineWriter() });
    const events: string[] = [];
    expect(await fillOfflineCache(h(events), records, async () => {}, new AbortController().signal)).toMatchObject({ phase: 'done', snapshotsDone: 2 });
    expect(events).toHaveLength(7);
    expect([...store.records.keys()].filter((k) => k.startsWith('outlines/')).sort()).toEqual(ids.map((id) => `outlines/${id}`).sort());
    const none: string[] = [];
    await fillOfflineCache(h(none), records, async () => {}, new AbortController().signal);
    expect(none).toEqual([]);
  });

  it('reads no tree while the page is busy, and goes on when it is idle again', async () => {
    const { s } = await repository();
    const events: string[] = [];
    let release!: () => void;
    const busy = new Promise<void>((r) => (release = r));
    const fill = fillOfflineCache(
      host(s, events, async () => {
        events.push('wait');
        await busy;
      }),
      memRecords(),
      async () => {},
      new AbortController().signal,
    );
    // The page browses meanwhile: its trees load while the fill waits.
    const root = (await s.snapshots()).at(-1)!.snapshot.tree;
    await s.tree(root);
    events.push('page');
    release();
    await fill;
    expect(events.indexOf('page')).toBeLessThan(events.findIndex((e) => e.startsWith('tree ')));
    expect(events[0]).toBe('wait');
  });

  it('stops with its signal', async () => {
    const { s } = await repository();
    const stop = new AbortController();
    stop.abort();
    await expect(fillOfflineCache(host(s, []), memRecords(), async () => {}, stop.signal)).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
