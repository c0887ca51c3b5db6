import { describe, expect, it } from 'vitest';
import { MemSource } from '../../test/helpers/mem-source';
import { ProgressTracker } from '../progress';
import { scanTotals } from './scanner';

const bytes = (n: number) => new Uint8Array(n);

describe('scanTotals', () => {
  const tree = () =>
    new MemSource({
      a: { f1: { data: bytes(100) }, f2: { data: bytes(0) }, sub: { f3: { data: bytes(50) }, l: { link: 'f3' } }, skip: { big: { data: bytes(1000) } } },
      b: { f4: { data: bytes(7) } },
    });

  it('counts files (symlinks too) and the bytes of regular files, then marks totals final', async () => {
    const p = new ProgressTracker('scanning');
    await scanTotals(tree(), ['/a', '/b'], undefined, p);
    expect(p.total).toEqual({ files: 6, bytes: 1157 });
    expect(p.totalsFinal).toBe(true);
  });

  it('skips excluded entries and whole excluded directories without listing them', async () => {
    const src = tree();
    const p = new ProgressTracker('scanning');
    await scanTotals(src, ['/a'], (path) => path.endsWith('/skip') || path.endsWith('/l'), p);
    expect(p.total).toEqual({ files: 3, bytes: 150 });
    expect(src.listed.has('/a/skip')).toBe(false);
  });

  it('ignores targets that cannot be read', async () => {
    const p = new ProgressTracker('scanning');
    await scanTotals(tree(), ['/nope', '/b'], undefined, p);
    expect(p.total).toEqual({ files: 1, bytes: 7 });
    expect(p.totalsFinal).toBe(true);
  });

  it('stops early when aborted, and a single file target counts once', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const p = new ProgressTracker('scanning');
    await scanTotals(tree(), ['/a'], undefined, p, ctl.signal);
    expect(p.total.files).toBe(0);
    const q = new ProgressTracker('scanning');
    await scanTotals(tree(), ['/a/f1'], undefined, q);
    expect(q.total).toEqual({ files: 1, bytes: 100 });
  });
  it('lists several directories at once, up to its limit, and still counts every file once', async () => {
    // top, 4 and 16 directories below it with 2 files each, and 64 empty ones under those.
    const level = (depth: number): Record<string, unknown> =>
      Object.fromEntries([
        ...Array.from({ length: 4 }, (_, i) => [`d${i}`, depth < 3 ? level(depth + 1) : {}]),
        ['x', { data: bytes(3) }],
        ['y', { data: bytes(4) }],
      ]);
    const src = new MemSource({ top: level(1) } as never);
    let open = 0;
    let most = 0;
    const order: string[] = [];
    const readDir = src.readDir.bind(src);
    src.readDir = async (dir, onError) => {
      order.push(dir.path);
      open++;
      most = Math.max(most, open);
      await new Promise((r) => setTimeout(r, 2));
      try {
        return await readDir(dir, onError);
      } finally {
        open--;
      }
    };
    const p = new ProgressTracker('scanning');
    await scanTotals(src, ['/top'], undefined, p, undefined, 5);
    expect(p.total).toEqual({ files: 21 * 2, bytes: 21 * 7 });
    expect(p.totalsFinal).toBe(true);
    expect(most).toBe(5);
    const one = new ProgressTracker('scanning');
    most = 0;
    order.length = 0;
    await scanTotals(src, ['/top'], undefined, one, undefined, 1);
    expect(one.total).toEqual(p.total);
    expect(most).toBe(1);
    // Depth-first, the first subdirectory listed first: the order the walk takes (MemSource
    // lists names in reverse).
    expect(order.slice(0, 8)).toEqual(['/top', '/top/d3', '/top/d3/d3', '/top/d3/d3/d3', '/top/d3/d3/d2', '/top/d3/d3/d1', '/top/d3/d3/d0', '/top/d3/d2']);
  });
});
