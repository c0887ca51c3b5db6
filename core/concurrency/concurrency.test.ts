import { describe, expect, it } from 'vitest';
import { deferred, mapLimit } from './concurrency';

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

describe('mapLimit', () => {
  it('returns results in input order whatever the completion order', async () => {
    const out = await mapLimit([5, 1, 4, 2, 3], 3, async (n, i) => {
      for (let k = 0; k < n; k++) await tick();
      return `${i}:${n * 10}`;
    });
    expect(out).toEqual(['0:50', '1:10', '2:40', '3:20', '4:30']);
  });

  it.each([1, 2, 7])('never has more than %i in flight and does use the room', async (limit) => {
    let inFlight = 0,
      max = 0;
    await mapLimit(
      Array.from({ length: 30 }, (_, i) => i),
      limit,
      async (i) => {
        inFlight++;
        max = Math.max(max, inFlight);
        for (let k = 0; k < (i % 4) + 1; k++) await tick();
        inFlight--;
      },
    );
    expect(max).toBe(limit);
  });

  it('reads async iterables lazily: never more than the limit ahead of completion', async () => {
    let produced = 0,
      done = 0;
    async function* source() {
      for (let i = 0; i < 20; i++) {
        produced++;
        expect(produced - done).toBeLessThanOrEqual(3);
        yield i;
      }
    }
    const out = await mapLimit(source(), 2, async (i) => {
      await tick();
      done++;
      return i * 2;
    });
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });

  it('handles empty input', async () => {
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });

  it('rejects with the first failure, starts nothing new, and waits for running work to settle', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const gate = deferred();
    const p = mapLimit(
      Array.from({ length: 10 }, (_, i) => i),
      3,
      async (i) => {
        started.push(i);
        if (i === 1) throw new Error('boom 1');
        if (i === 2) throw new Error('boom 2');
        await gate.promise;
        finished.push(i);
      },
    );
    let settled = false;
    void p.catch(() => {}).finally(() => (settled = true));
    for (let k = 0; k < 5; k++) await tick();
    expect(settled).toBe(false); // item 0 still runs
    gate.resolve();
    await expect(p).rejects.toThrow('boom 1');
    expect(finished).toContain(0);
    expect(Math.max(...started)).toBeLessThan(6);
  });

  it('runs one at a time with limit 1', async () => {
    const order: string[] = [];
    await mapLimit(['a', 'b', 'c'], 1, async (x) => {
      order.push(`start ${x}`);
      await tick();
      order.push(`end ${x}`);
    });
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});

describe('deferred', () => {
  it('exposes resolve and reject', async () => {
    const a = deferred<number>();
    a.resolve(42);
    expect(await a.promise).toBe(42);
    const b = deferred();
    b.reject(new Error('no'));
    await expect(b.promise).rejects.toThrow('no');
  });
});
