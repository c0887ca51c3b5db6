import { describe, expect, it } from 'vitest';
import { ByteQueue } from './streams';

const piece = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);
const concat = (xs: Uint8Array[]) => {
  const out = new Uint8Array(xs.reduce((n, x) => n + x.length, 0));
  let at = 0;
  for (const x of xs) out.set(x, (at += x.length) - x.length);
  return out;
};

describe('ByteQueue', () => {
  it('hands over every byte in order, small pieces gathered into chunks of at most `coalesce`', async () => {
    const q = new ByteQueue(1 << 20, 1000);
    const sizes = [10, 300, 5, 700, 2000, 1, 999, 1000, 64, 64, 100_000, 3, 4];
    const big = new Uint8Array(200_000);
    const pushed = sizes.map((n, i) => (n === 100_000 ? big.subarray(50, 50 + n).fill(9) : piece(n, i)));
    const producer = (async () => {
      for (const p of pushed) await q.push(p);
      q.end();
    })();
    const got: Uint8Array[] = [];
    await producer; // all fits under the high-water mark: the consumer sees the gathering
    for (let c = await q.next(); c; c = await q.next()) got.push(c.slice());
    expect(concat(got)).toEqual(concat(pushed));
    expect(got.map((c) => c.length)).toEqual([315, 700, 2000, 1000, 1000, 128, 100_000, 7]);
  });

  it('a consumer that takes each small piece gets it in a buffer of its own size, and the gathering buffer goes on', async () => {
    const q = new ByteQueue(1 << 20, 1000);
    const pushed: Uint8Array[] = [];
    const got: Uint8Array[] = [];
    for (const [i, n] of [10, 300, 499, 600, 5].entries()) {
      pushed.push(piece(n, i));
      await q.push(pushed[i]!);
      got.push((await q.next())!); // kept as handed over: later pushes must not change them
    }
    q.end();
    expect(await q.next()).toBeUndefined();
    expect(concat(got)).toEqual(concat(pushed));
    // Under half of `coalesce` gathered: a copy just that big. From half on: the buffer itself.
    expect(got.map((c) => c.buffer.byteLength)).toEqual([10, 300, 499, 1000, 5]);
  });

  it('a shared buffer is copied before it is queued; a whole one is passed as is', async () => {
    const q = new ByteQueue(1 << 20, 1000);
    const whole = piece(70_000, 1);
    const shared = new Uint8Array(200_000).subarray(10, 70_010);
    await q.push(whole);
    await q.push(shared);
    q.end();
    const a = await q.next();
    const b = await q.next();
    expect(a).toBe(whole);
    expect(b!.buffer).not.toBe(shared.buffer);
    expect(b).toEqual(shared);
    expect(await q.next()).toBeUndefined();
  });

  it('makes the producer wait above the high-water mark, and a cancel fails its next push', async () => {
    const q = new ByteQueue(100, 10);
    let pushed = 0;
    const producer = (async () => {
      for (let i = 0; i < 10; i++) {
        await q.push(piece(60, i));
        pushed++;
      }
    })();
    await new Promise((r) => setTimeout(r, 5));
    expect(pushed).toBe(1); // the second push (120 bytes queued) waits
    expect((await q.next())!.length).toBe(60);
    await new Promise((r) => setTimeout(r, 5));
    expect(pushed).toBe(2);
    q.cancel();
    await expect(producer).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('take() hands over everything queued up to a byte limit, at least one piece, and [] at the end', async () => {
    const q = new ByteQueue(1 << 20, 1000);
    for (const n of [70_000, 80_000, 300, 90_000]) await q.push(piece(n, n));
    const first = await q.take(200_000);
    expect(first.map((c) => c.length)).toEqual([70_000, 80_000, 300]);
    const waiting = q.take(10); // one piece even past the limit; waits for it
    await q.push(piece(5, 1));
    expect((await waiting).map((c) => c.length)).toEqual([90_000]);
    q.end();
    expect((await q.take()).map((c) => c.length)).toEqual([5]);
    expect(await q.take()).toEqual([]);
  });
});
