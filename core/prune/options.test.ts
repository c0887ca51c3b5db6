import { describe, expect, it } from 'vitest';
import { maxUnusedBytes, parseMaxUnused, parseRepackSmallerThan, parseSize } from './options';

describe('prune options (restic verifyPruneOptions, ui.ParseBytes)', () => {
  it.each([
    ['0', 0],
    ['100', 100],
    ['100b', 100],
    ['2k', 2048],
    ['2K', 2048],
    ['3m', 3 * 2 ** 20],
    ['1G', 2 ** 30],
    ['1t', 2 ** 40],
  ])('size %s is %d bytes', (s, n) => expect(parseSize(s)).toBe(n));

  it.each(['', 'k', '1.5m', 'ten', '-1', '1x'])('size %j is refused', (s) => expect(() => parseSize(s)).toThrow(expect.objectContaining({ code: 'USAGE' })));

  it('max-unused: unlimited, a percentage below 100, or a size', () => {
    expect(parseMaxUnused('unlimited')).toEqual({ kind: 'unlimited' });
    expect(parseMaxUnused(' 5% ')).toEqual({ kind: 'percent', percent: 5 });
    expect(parseMaxUnused('0%')).toEqual({ kind: 'percent', percent: 0 });
    expect(parseMaxUnused('12.5%')).toEqual({ kind: 'percent', percent: 12.5 });
    expect(parseMaxUnused('10M')).toEqual({ kind: 'bytes', bytes: 10 * 2 ** 20 });
    expect(parseMaxUnused('0')).toEqual({ kind: 'bytes', bytes: 0 });
    for (const bad of ['', '100%', '-1%', 'x%', '%', 'lots']) expect(() => parseMaxUnused(bad), bad).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('max-unused bytes: p/(100-p) of the used size, truncated', () => {
    expect(maxUnusedBytes({ kind: 'percent', percent: 5 }, 1900)).toBe(100);
    expect(maxUnusedBytes({ kind: 'percent', percent: 5 }, 1000)).toBe(52);
    expect(maxUnusedBytes({ kind: 'percent', percent: 0 }, 1000)).toBe(0);
    expect(maxUnusedBytes({ kind: 'bytes', bytes: 7 }, 1000)).toBe(7);
    expect(maxUnusedBytes({ kind: 'unlimited' }, 1000)).toBe(Infinity);
  });

  it('repack-smaller-than must be above zero', () => {
    expect(parseRepackSmallerThan('4M')).toBe(4 * 2 ** 20);
    expect(() => parseRepackSmallerThan('0')).toThrow('must be larger than zero');
    expect(() => parseRepackSmallerThan('x')).toThrow('invalid number of bytes');
  });
});
