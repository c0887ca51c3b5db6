import { describe, expect, it } from 'vitest';
import { parsePattern } from '../filter/pattern';
import { selector } from './selection';

const p = (...s: string[]) => s.map(parsePattern);
const at = (path: string) => path.split('/').filter(Boolean);

describe('selector (restic SelectFilter)', () => {
  it('selects everything without patterns', () => {
    expect(selector({})(at('/a/b'), true)).toEqual({ selected: true, descend: true });
  });

  it('exclude: a match is neither restored nor walked; the rest is, and only folders are walked', () => {
    const s = selector({ exclude: p('*.tmp', '/a/skip') });
    expect(s(at('/a/x.tmp'), false)).toEqual({ selected: false, descend: false });
    expect(s(at('/a/skip'), true)).toEqual({ selected: false, descend: false });
    expect(s(at('/a/keep'), true)).toEqual({ selected: true, descend: true });
    expect(s(at('/a/keep.txt'), false)).toEqual({ selected: true, descend: false });
  });

  it('include: what matches, the folders leading to it walked but not selected', () => {
    const s = selector({ include: p('/a/b/c.txt') });
    expect(s(at('/a'), true)).toEqual({ selected: false, descend: true });
    expect(s(at('/a/b/c.txt'), false)).toEqual({ selected: true, descend: false });
    expect(s(at('/x'), true)).toEqual({ selected: false, descend: false });
  });

  it('a negated include closes a folder again', () => {
    const s = selector({ include: p('/a', '!/a/b') });
    expect(s(at('/a/b'), true)).toEqual({ selected: false, descend: false });
    expect(s(at('/a/c'), true)).toEqual({ selected: true, descend: true });
  });

  it('iinclude and iexclude ignore case, in the patterns and in the paths', () => {
    expect(selector({ iinclude: p('/A/*.TXT') })(at('/a/Notes.txt'), false).selected).toBe(true);
    expect(selector({ include: p('/A/*.TXT') })(at('/a/Notes.txt'), false).selected).toBe(false);
    expect(selector({ iexclude: p('*.JPG') })(at('/a/photo.jpg'), false).selected).toBe(false);
  });

  it('matches the snapshot path: pathPrefix leads the walk path', () => {
    const s = selector({ include: p('/home/u/docs'), pathPrefix: ['home', 'u'] });
    expect(s(at('/docs/x'), false).selected).toBe(true);
    expect(s(at('/music'), true).descend).toBe(false);
  });
});
