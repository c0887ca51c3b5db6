import { describe, expect, it, vi } from 'vitest';

// The savers spawnSavers starts, as fakes: which were started and ended, and a way to fail one.
const started: { id: number; ended: boolean; fail(): void }[] = [];
vi.mock('../spawn', () => ({
  spawnWorker: () => {
    const w = {
      onmessage: null,
      onmessageerror: null,
      onerror: null as null | ((ev: { message: string; preventDefault(): void }) => void),
      postMessage() {},
      terminate() {
        rec.ended = true;
      },
    };
    const rec = { id: started.length, ended: false, fail: () => w.onerror?.({ message: 'boom', preventDefault() {} }) };
    started.push(rec);
    return w;
  },
}));
vi.mock('./file-saver.worker.ts?worker&url', () => ({ default: 'saver.js' }));

const { spawnSavers, standBySavers, takeSavers, dropStandingSavers } = await import('./browser-pool');

describe('savers started ahead', () => {
  it('hands out the started ones first, passes over one that failed to start, then starts new ones', () => {
    started.length = 0;
    const spares = spawnSavers(3);
    expect(started.length).toBe(3);
    started[1]!.fail();
    const a = spares.take();
    const b = spares.take(); // #1 failed: ended, #2 given instead
    const c = spares.take(); // none left: a new one
    expect(started.map((s) => s.ended)).toEqual([false, true, false, false]);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(started.length).toBe(4);
    spares.dispose(); // the taken ones are the pool's to end
    expect(started.filter((s) => s.ended).length).toBe(1);
  });

  it('dispose ends only the ones nobody took', () => {
    started.length = 0;
    const spares = spawnSavers(2);
    spares.take();
    spares.dispose();
    expect(started.map((s) => s.ended)).toEqual([false, true]);
  });

  it('a backup takes the standing savers once; the next starts its own unless new ones stand by', () => {
    started.length = 0;
    standBySavers(2);
    expect(started.length).toBe(2);
    const first = takeSavers(2);
    first.take();
    first.take();
    expect(started.length).toBe(2); // the standing ones
    const second = takeSavers(2);
    expect(started.length).toBe(4); // none standing: started now
    second.take();
    second.dispose(); // the one this backup did not need
    expect(started.slice(2).map((s) => s.ended)).toEqual([false, true]);
    standBySavers(2);
    standBySavers(2); // as many already stand by: kept, none started
    expect(started.length).toBe(6);
    standBySavers(3); // a different count replaces the set: the old one ends
    expect(started.slice(4).map((s) => s.ended)).toEqual([true, true, false, false, false]);
    dropStandingSavers();
    expect(started.slice(4).every((s) => s.ended)).toBe(true);
  });
});
