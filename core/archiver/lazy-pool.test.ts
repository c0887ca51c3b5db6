import { describe, expect, it, vi } from 'vitest';
import { isCairnError } from '../errors';
import { LazyPool, withTimeout } from './lazy-pool';
import type { FileSaverPool, PoolFactory } from './pool';

const settings = {} as Parameters<PoolFactory>[0];
const hooks = { claim: () => true, packSaved: () => {} };

function fakePool(flush: () => Promise<void> = async () => {}) {
  const log: string[] = [];
  const factory: PoolFactory = async () => {
    log.push('start');
    const pool: FileSaverPool = {
      concurrency: 3,
      save: async () => ({ content: [], size: 0, blobsNew: 0, bytesNew: 0, bytesStored: 0, changed: false }),
      flush: async () => (log.push('flush'), flush()),
      close: async () => void log.push('close'),
    };
    return pool;
  };
  return { factory, log };
}

describe('LazyPool', () => {
  it('starts nothing until a file needs a saver; flush and close are then no-ops', async () => {
    const { factory, log } = fakePool();
    const lazy = new LazyPool(factory, settings, hooks);
    await lazy.flush();
    await lazy.flushWithin(10);
    await lazy.close();
    expect(lazy.started).toBe(false);
    expect(log).toEqual([]);
  });

  it('starts the pool once, with a file slot per unit of its concurrency', async () => {
    const { factory, log } = fakePool();
    const lazy = new LazyPool(factory, settings, hooks);
    const [a, b] = await Promise.all([lazy.get(), lazy.get()]);
    expect(a).toBe(b);
    expect(a.files.capacity).toBe(3);
    await lazy.flush();
    await lazy.close();
    expect(log).toEqual(['start', 'flush', 'close']);
  });

  it('after a cancel, waits for the savers to store what they hold only so long', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { factory } = fakePool(() => new Promise(() => {})); // never finishes
      const lazy = new LazyPool(factory, settings, hooks);
      await lazy.get();
      let flushed = false;
      const flushing = lazy.flushWithin(30).then(() => (flushed = true));
      await vi.advanceTimersByTimeAsync(29);
      expect(flushed).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await flushing;
      const late = withTimeout(new Promise(() => {}), 5).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(5);
      expect(isCairnError(await late, 'ABORTED')).toBe(true);
      expect(await withTimeout(Promise.resolve(7), 5)).toBe(7);
      expect(vi.getTimerCount()).toBe(0); // the resolved one's timer was cleared
    } finally {
      vi.useRealTimers();
    }
  });
});
