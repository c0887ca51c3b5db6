import { describe, expect, it } from 'vitest';
import { GoTime, type Node } from '../data';
import { unchanged } from './change-detection';
import type { SourceEntry } from './source';

const t = (s: number) => GoTime.fromUnix(1_700_000_000 + s, 0);
const old: Node = {
  name: 'f',
  type: 'file',
  mode: 0o644,
  mtime: t(0),
  atime: t(0),
  ctime: t(1),
  uid: 0,
  gid: 0,
  inode: 5n,
  size: 10,
  content: ['ab'.repeat(32)],
};
const entry = (over: Partial<SourceEntry['node']> = {}, size = 10): SourceEntry => ({
  path: '/f',
  size,
  ref: '/f',
  node: { name: 'f', type: 'file', mode: 0o644, mtime: t(0), atime: t(99), ctime: t(1), uid: 0, gid: 0, inode: 5n, size, ...over },
});

describe('unchanged', () => {
  it('same type, size and mtime: unchanged (atime, mode and owner do not matter)', () => {
    expect(unchanged(old, entry(), false)).toBe(true);
    expect(unchanged(old, entry({ mode: 0o600, uid: 7, atime: t(5) }), true)).toBe(true);
  });

  it.each([
    ['a different size', entry({}, 11)],
    ['a different mtime', entry({ mtime: t(1) })],
    ['an mtime 1 ns later', entry({ mtime: GoTime.fromUnix(1_700_000_000, 1) })],
    ['the same instant in another zone is not a change', entry({ mtime: t(0).withOffset(3600) })],
  ])('%s', (what, e) => {
    expect(unchanged(old, e, false)).toBe(what.startsWith('the same instant'));
  });

  it('a non-file on either side, or an old file without a content list, is changed', () => {
    expect(unchanged({ ...old, type: 'dir', content: null }, entry(), false)).toBe(false);
    expect(unchanged(old, entry({ type: 'symlink' }), false)).toBe(false);
    expect(unchanged({ ...old, content: null }, entry(), false)).toBe(false);
    expect(unchanged({ ...old, content: [], size: 0 }, entry({}, 0), false)).toBe(true);
  });

  it('ctime and inode count only in strict mode, and only when both sides know them', () => {
    expect(unchanged(old, entry({ ctime: t(2) }), false)).toBe(true);
    expect(unchanged(old, entry({ ctime: t(2) }), true)).toBe(false);
    expect(unchanged(old, entry({ inode: 6n }), false)).toBe(true);
    expect(unchanged(old, entry({ inode: 6n }), true)).toBe(false);
    expect(unchanged({ ...old, ctime: GoTime.zero }, entry({ ctime: t(2) }), true)).toBe(true);
    expect(unchanged(old, entry({ ctime: GoTime.zero }), true)).toBe(true);
    expect(unchanged({ ...old, inode: undefined }, entry({ inode: 6n }), true)).toBe(true);
    expect(unchanged(old, entry({ inode: undefined }), true)).toBe(true);
  });

  it('an old node without a size counts as size 0', () => {
    expect(unchanged({ ...old, size: undefined }, entry({}, 0), false)).toBe(true);
    expect(unchanged({ ...old, size: undefined }, entry({}, 1), false)).toBe(false);
  });
});
