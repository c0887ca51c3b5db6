import { describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import { isCairnError } from '../errors';
import type { Backend, FileInfo, Handle } from './backend';
import { backendConformanceSuite, expectCode, listAll } from './conformance';
import { Semaphore, withConcurrencyLimit } from './limit';
import { MemoryBackend } from './mem';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

backendConformanceSuite('withConcurrencyLimit over MemoryBackend', async () => ({
  backend: withConcurrencyLimit(new MemoryBackend(), 2),
  cleanup: async () => {},
}));

describe('Semaphore', () => {
  it('rejects a capacity that is not a positive integer', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => new Semaphore(n)).toThrow(/positive integer/);
  });

  it('hands slots to waiters in FIFO order', async () => {
    const sem = new Semaphore(2);
    await sem.acquire();
    await sem.acquire();
    expect(sem.available).toBe(0);
    const order: number[] = [];
    const waits = [1, 2, 3].map((i) => sem.acquire().then(() => void order.push(i)));
    expect(sem.waiting).toBe(3);
    sem.release();
    await settle();
    expect(order).toEqual([1]);
    sem.release();
    sem.release();
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
    expect(sem.available).toBe(0);
    sem.release();
    sem.release();
    expect(sem.available).toBe(2);
    expect(() => sem.release()).toThrow(/released more often/);
  });

  it('tryAcquire takes a free slot without waiting', () => {
    const sem = new Semaphore(1);
    expect(sem.tryAcquire()).toBe(true);
    expect(sem.tryAcquire()).toBe(false);
  });

  it('abandons a wait when aborted, without taking a slot', async () => {
    const sem = new Semaphore(1);
    await sem.acquire();
    const ac = new AbortController();
    const waiting = sem.acquire(ac.signal);
    const after = sem.acquire();
    ac.abort();
    await expectCode(waiting, 'ABORTED');
    expect(sem.waiting).toBe(1);
    sem.release();
    await after; // the slot went to the next waiter
    expect(sem.available).toBe(0);
    const pre = new AbortController();
    pre.abort();
    await expectCode(sem.acquire(pre.signal), 'ABORTED');
  });

  it('many waiters on one signal share one abort listener; abort rejects those still waiting', async () => {
    const sem = new Semaphore(1);
    const ctl = new AbortController();
    await sem.acquire(ctl.signal);
    const outcomes: string[] = [];
    const waits = Array.from({ length: 2000 }, (_, i) =>
      sem.acquire(ctl.signal).then(
        () => void outcomes.push(`got ${i}`),
        (e: unknown) => void outcomes.push(isCairnError(e, 'ABORTED') ? 'aborted' : 'other'),
      ),
    );
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1);
    expect(sem.waiting).toBe(2000);
    sem.release(); // waiter 0 gets the slot
    sem.release(); // waiter 1
    await settle();
    ctl.abort();
    await Promise.all(waits);
    expect(outcomes.slice(0, 2)).toEqual(['got 0', 'got 1']);
    expect(outcomes.filter((o) => o === 'aborted')).toHaveLength(1998);
    expect(sem.waiting).toBe(0);
    // The slot waiter 1 holds is the only one taken: one release frees the semaphore fully.
    sem.release();
    expect(sem.available).toBe(1);
    // Once nobody waits, no listener is left behind on a signal.
    const other = new AbortController();
    await sem.acquire(other.signal);
    const p = sem.acquire(other.signal);
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(1);
    sem.release();
    await p;
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  it('run() releases its slot when the work throws', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(sem.available).toBe(1);
    expect(await sem.run(async () => 42)).toBe(42);
  });
});

/** A backend whose requests stay in flight until released, counting the peak. */
function gated() {
  const inner = new MemoryBackend();
  let inFlight = 0;
  let peak = 0;
  const gates: (() => void)[] = [];
  const hold = async <T>(fn: () => Promise<T>): Promise<T> => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await new Promise<void>((r) => gates.push(r));
    inFlight--;
    return fn();
  };
  const be: Backend = {
    location: 'gated',
    connections: 3,
    close: async () => {},
    save: (h, d, o) => hold(() => inner.save(h, d, o)),
    load: (h, o) => hold(() => inner.load(h, o)),
    stat: (h, o) => hold(() => inner.stat(h, o)),
    remove: (h, o) => hold(() => inner.remove(h, o)),
    list: (t, o): AsyncIterable<FileInfo> => inner.list(t, o),
  };
  const openAll = async () => {
    while (gates.length || inFlight) {
      gates.splice(0).forEach((g) => g());
      await settle();
    }
  };
  return { be, inner, peak: () => peak, inFlight: () => inFlight, openAll };
}

const idx = (i: number): Handle => ({ type: 'index', name: `i${i}` });

describe('withConcurrencyLimit', () => {
  it("keeps at most n requests in flight, defaulting to the backend's connections", async () => {
    const g = gated();
    const be = withConcurrencyLimit(g.be);
    expect(be.connections).toBe(3);
    const saves = Array.from({ length: 10 }, (_, i) => be.save(idx(i), new Uint8Array([i])));
    await settle();
    expect(g.inFlight()).toBe(3);
    await g.openAll();
    await Promise.all(saves);
    expect(g.peak()).toBe(3);
    expect(await listAll(g.inner, 'index')).toHaveLength(10);
  });

  it('lets lock files through, so lock refreshes never queue behind uploads', async () => {
    const g = gated();
    const be = withConcurrencyLimit(g.be, 1);
    const pack = be.save({ type: 'data', name: 'aabb' }, new Uint8Array(1));
    const lock = be.save({ type: 'locks', name: 'cc' }, new Uint8Array(1));
    await settle();
    expect(g.inFlight()).toBe(2);
    await g.openAll();
    await Promise.all([pack, lock]);
  });

  it('does not limit listing', async () => {
    const g = gated();
    await g.inner.save(idx(1), new Uint8Array(1));
    const be = withConcurrencyLimit(g.be, 1);
    const busy = be.stat(idx(1));
    await settle();
    expect(await listAll(be, 'index')).toEqual([{ name: 'i1', size: 1 }]);
    await g.openAll();
    await busy;
  });

  it('abandons a queued request on abort without calling the backend', async () => {
    const g = gated();
    const be = withConcurrencyLimit(g.be, 1);
    const first = be.save(idx(1), new Uint8Array(1));
    const ac = new AbortController();
    const queued = be.save(idx(2), new Uint8Array(1), { signal: ac.signal });
    await settle();
    ac.abort();
    const e = await queued.catch((x: unknown) => x);
    expect(isCairnError(e, 'ABORTED')).toBe(true);
    await g.openAll();
    await first;
    expect(g.peak()).toBe(1);
    await expectCode(g.inner.stat(idx(2)), 'NOT_FOUND');
  });
});
