import { describe, expect, it } from 'vitest';
import { parseSubset, selectSubset } from './subset';

const id = (firstByte: number, n: number) => firstByte.toString(16).padStart(2, '0') + n.toString(16).padStart(62, '0');

describe('--read-data-subset', () => {
  it.each([
    ['1/3', { kind: 'bucket', n: 1, t: 3 }],
    ['256/256', { kind: 'bucket', n: 256, t: 256 }],
    ['10%', { kind: 'percent', percent: 10 }],
    ['2.5%', { kind: 'percent', percent: 2.5 }],
    ['100%', { kind: 'percent', percent: 100 }],
    ['5M', { kind: 'size', bytes: 5 * 2 ** 20 }],
    ['1g', { kind: 'size', bytes: 2 ** 30 }],
    ['700b', { kind: 'size', bytes: 700 }],
    ['2T', { kind: 'size', bytes: 2 * 2 ** 40 }],
  ])('parses %s as restic does', (s, want) => expect(parseSubset(s)).toEqual(want));

  it.each([
    ['5', 'has invalid value'], // a bare number is an n/t list of one (restic refuses it too)
    ['1/2/3', 'has invalid value'],
    ['0/3', 'n <= t'],
    ['4/3', 'n <= t'],
    ['1/257', 'at most 256'],
    ['0%', 'above 0.0%'],
    ['100.5%', 'above 0.0%'],
    ['x%', 'has invalid value'],
    ['0k', 'must be above 0'],
    ['5Q', 'has invalid value'],
    ['', 'has invalid value'],
  ])('refuses %s', (s, msg) => expect(() => parseSubset(s)).toThrow(msg));

  it('n/t selects the packs whose first ID byte modulo t is n-1, and the t groups cover every pack once', () => {
    const packs = new Map(Array.from({ length: 256 }, (_, b) => [id(b, b), 100] as [string, number]));
    const seen: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const c = selectSubset(packs, { kind: 'bucket', n, t: 5 });
      for (const p of c.packs) expect(parseInt(p.slice(0, 2), 16) % 5).toBe(n - 1);
      seen.push(...c.packs);
      expect(c.message).toBe(`read group #${n} of ${c.packs.length} data packs (out of total 256 packs in 5 groups)`);
    }
    expect(seen.sort()).toEqual([...packs.keys()].sort());
  });

  it('x% reads that share of the packs (at least one), chosen at random', () => {
    const packs = new Map(Array.from({ length: 40 }, (_, i) => [id(i, i), 100] as [string, number]));
    expect(selectSubset(packs, { kind: 'percent', percent: 10 }).packs).toHaveLength(4);
    expect(selectSubset(packs, { kind: 'percent', percent: 0.1 }).packs).toHaveLength(1);
    const a = selectSubset(packs, { kind: 'percent', percent: 50 }, () => 0).packs;
    const b = selectSubset(packs, { kind: 'percent', percent: 50 }, () => 0.999).packs;
    expect(new Set(a).size).toBe(20);
    expect(a).not.toEqual(b);
    expect(selectSubset(packs, { kind: 'percent', percent: 10 }).message).toBe('read 10.0% of packfiles');
  });

  it('a size reads that share of the bytes, capped at the repository size', () => {
    const packs = new Map(Array.from({ length: 10 }, (_, i) => [id(i, i), 1000] as [string, number]));
    const c = selectSubset(packs, { kind: 'size', bytes: 3000 });
    expect(c.packs).toHaveLength(3);
    expect(c.message).toBe('read 3000 bytes (30.0%) of data packs');
    expect(selectSubset(packs, { kind: 'size', bytes: 10 ** 9 }).packs).toHaveLength(10);
    expect(selectSubset(new Map(), { kind: 'size', bytes: 5 }).message).toBe('read 0 bytes (100.0%) of data packs');
  });
});
