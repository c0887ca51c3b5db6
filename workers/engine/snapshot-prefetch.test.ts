// Snapshot files fetched during an open: the session's first listing takes them (no second
// listing, no second fetch), and a stopped prefetch starts no further fetches.

import { describe, expect, it } from 'vitest';
import { memRepo } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import { MemoryBackend } from '../../core/backend/mem';
import type { FileType, Handle, LoadOptions } from '../../core/backend/backend';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { randomID } from '../../core/id';
import { Session } from './session';
import { prefetchSnapshots } from './snapshot-prefetch';

/** A memory backend that counts snapshot listings and snapshot file loads. */
class CountingBackend extends MemoryBackend {
  lists = 0;
  loads = 0;
  override list(t: FileType, o?: Parameters<MemoryBackend['list']>[1]) {
    if (t === 'snapshots') this.lists++;
    return super.list(t, o);
  }
  override load(h: Handle, o?: LoadOptions) {
    if (h.type === 'snapshots') this.loads++;
    return super.load(h, o);
  }
}

describe('prefetchSnapshots', () => {
  it('the session’s first listing takes the fetched files: one listing and one fetch per file in all', async () => {
    const backend = new CountingBackend();
    const { repo } = await memRepo({ backend });
    const src = new MemSource({ d: { 'a.txt': { data: new TextEncoder().encode('a') } } });
    for (const hostname of ['h1', 'h2']) await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname, targets: ['/d'] });
    const [lists, loads] = [backend.lists, backend.loads];
    const prefetched = prefetchSnapshots(backend);
    const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false, prefetched });
    expect((await s.openInfo()).snapshots).toBe(2);
    expect([backend.lists - lists, backend.loads - loads]).toEqual([1, 2]);
    // Later listings read the backend again; the files already read are not fetched again.
    s.listed();
    expect(await s.pageSnapshots()).toHaveLength(2);
    expect([backend.lists - lists, backend.loads - loads]).toEqual([2, 2]);
  });

  it('once stopped, starts no further fetches', async () => {
    const backend = new CountingBackend();
    for (let i = 0; i < 10; i++) await backend.save({ type: 'snapshots', name: randomID() }, new Uint8Array([i]));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = backend.load.bind(backend);
    backend.load = async (h, o) => {
      const out = load(h, o);
      await gate;
      return out;
    };
    const p = prefetchSnapshots(backend);
    const ids = await p.ids;
    expect(ids).toHaveLength(10);
    const started = backend.loads;
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThan(10);
    p.stop();
    release();
    await Promise.allSettled(ids.map((id) => p.file(id)));
    expect(backend.loads).toBe(started);
  });
});
