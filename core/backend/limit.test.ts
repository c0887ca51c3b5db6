import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import type { Backend, FileInfo, Handle } from './backend';
import { backendConformanceSuite, expectCode, listAll } from '../../test/helpers/backend-conformance';
import { withConcurrencyLimit } from './limit';
import { MemoryBackend } from './mem';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

backendConformanceSuite('withConcurrencyLimit over MemoryBackend', async () => ({
  backend: withConcurrencyLimit(new MemoryBackend(), 2),
  cleanup: async () => {},
}));

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
