import { describe, expect, it } from 'vitest';
import { childMayMatch, childMayMatchAny, matchAny, matchComponent, matchPattern, parsePattern } from './pattern';

// Our paths are always absolute component lists ("/foo/bar" → ["foo", "bar"]). restic's tables
// also have relative paths ("bar/baz/test.go"); restic never lets an anchored pattern match
// those, and every such case below expects false either way, so they are kept as they are.
const comps = (p: string) => p.split('/').filter(Boolean);
const match = (pattern: string, path: string) => matchPattern(parsePattern(pattern), comps(path));

// The cases of restic 0.14's internal/filter/filter_test.go (matchTests), as data. The three
// cases with the empty pattern are left out: restic's Match("") matches everything, but
// ParsePatterns drops empty patterns from lists, which is what we implement (see below).
const RESTIC_MATCH: [pattern: string, path: string, match: boolean][] = [
  ['*.go', '/foo/bar/test.go', true],
  ['*.c', '/foo/bar/test.go', false],
  ['*', '/foo/bar/test.go', true],
  ['**', '/foo/bar/test.go', true],
  ['foo*', '/foo/bar/test.go', true],
  ['bar*', '/foo/bar/test.go', true],
  ['/bar*', '/foo/bar/test.go', false],
  ['bar/*', '/foo/bar/test.go', true],
  ['baz/*', '/foo/bar/test.go', false],
  ['bar/test.go', '/foo/bar/test.go', true],
  ['bar/*.go', '/foo/bar/test.go', true],
  ['ba*/*.go', '/foo/bar/test.go', true],
  ['bb*/*.go', '/foo/bar/test.go', false],
  ['test.*', '/foo/bar/test.go', true],
  ['tesT.*', '/foo/bar/test.go', false],
  ['bar/*', '/foo/bar/baz', true],
  ['bar', '/foo/bar', true],
  ['/foo/bar', '/foo/bar', true],
  ['/foo/bar/', '/foo/bar', true],
  ['/foo/bar', '/foo/baz', false],
  ['/foo/bar', '/foo/baz/', false],
  ['/foo///bar', '/foo/bar', true],
  ['/foo/../bar', '/foo/bar', false],
  ['/foo/../bar', '/bar', true],
  ['/foo', '/foo/baz', true],
  ['/foo/', '/foo/baz', true],
  ['/foo/*', '/foo', false],
  ['/foo/*', '/foo/baz', true],
  ['bar', '/foo/bar/baz', true],
  ['bar', '/foo/bar/test.go', true],
  ['/foo/*test.*', '/foo/bar/test.go', false],
  ['/foo/*/test.*', '/foo/bar/test.go', true],
  ['/foo/*/bar/test.*', '/foo/bar/test.go', false],
  ['/*/*/bar/test.*', '/foo/bar/test.go', false],
  ['/*/*/bar/test.*', '/foo/bar/baz/test.go', false],
  ['/*/*/baz/test.*', '/foo/bar/baz/test.go', true],
  ['/*/foo/bar/test.*', '/foo/bar/baz/test.go', false],
  ['/foo/bar/test.*', 'bar/baz/test.go', false],
  ['/x/y/bar/baz/test.*', 'bar/baz/test.go', false],
  ['/x/y/bar/baz/test.c', 'bar/baz/test.go', false],
  ['baz/test.*', 'bar/baz/test.go', true],
  ['baz/tesT.*', 'bar/baz/test.go', false],
  ['test.go', 'bar/baz/test.go', true],
  ['*.go', 'bar/baz/test.go', true],
  ['*.c', 'bar/baz/test.go', false],
  ['sdk', '/foo/bar/sdk', true],
  ['sdk', '/foo/bar/sdk/test/sdk_foo.go', true],
  ['sdk/*/cpp/*/*vars*.html', '/usr/share/doc/libreoffice/sdk/docs/cpp/ref/a00517.html', false],
  ['foo/**/bar/*.go', '/home/user/foo/work/special/project/bar/test.go', true],
  ['foo/**/bar/*.go', '/home/user/foo/bar/test.go', true],
  ['foo/**/bar/*.go', 'x/foo/bar/test.go', true],
  ['foo/**/bar/*.go', 'foo/bar/test.go', true],
  ['foo/**/bar/*.go', 'foo/bar/baz/bar/test.go', true],
  ['foo/**/bar/*.go', '/home/user/foo/test.c', false],
  ['foo/**/bar/*.go', 'bar/foo/main.go', false],
  ['foo/**/bar/*.go', '/foo/bar/main.go', true],
  ['foo/**/bar/*.go', 'bar/main.go', false],
  ['foo/**/bar', '/home/user/foo/x/y/bar', true],
  ['foo/**/bar', '/home/user/foo/x/y/bar/main.go', true],
  ['foo/**/bar/**/x', '/home/user/foo/bar/x', true],
  ['foo/**/bar/**/x', '/home/user/foo/blaaa/blaz/bar/shared/work/x', true],
  ['user/**/important*', '/home/user/work/x/y/hidden/x', false],
  ['user/**/hidden*/**/c', '/home/user/work/x/y/hidden/z/a/b/c', true],
  ['c:/foo/*test.*', 'c:/foo/bar/test.go', false],
  ['c:/foo', 'c:/foo/bar', true],
  ['c:/foo/', 'c:/foo/bar', true],
  ['c:/foo/*/test.*', 'c:/foo/bar/test.go', true],
  ['c:/foo/*/bar/test.*', 'c:/foo/bar/test.go', false],
  // restic's ExampleMatch_wildcards
  ['/home/[uU]ser/?.go', '/home/user/F.go', true],
];

// restic 0.14 childMatchTests (the empty-pattern cases left out as above).
const RESTIC_CHILD: [pattern: string, dir: string, mayMatch: boolean][] = [
  ['foo/bar', '/foo', true],
  ['baz/bar', '/foo', true],
  ['foo', '/foo/bar', true],
  ['bar', '/foo', true],
  ['baz', '/foo/bar', true],
  ['*', '/foo', true],
  ['*', '/foo/bar', true],
  ['/foo/bar', '/foo', true],
  ['/foo/bar/baz', '/foo', true],
  ['/foo/bar/baz', '/foo/bar', true],
  ['/foo/bar/baz', '/foo/baz', false],
  ['/foo/**/baz', '/foo/bar/baz', true],
  ['/foo/**/baz', '/foo/bar/baz/blah', true],
  ['/foo/**/qux', '/foo/bar/baz/qux', true],
  ['/foo/**/qux', '/foo/bar/baz', true],
  ['/foo/**/qux', '/foo/bar/baz/boo', true],
  ['/foo/**', '/foo/bar/baz', true],
  ['/foo/**', '/foo/bar', true],
  ['foo/**/bar/**/x', '/home/user/foo', true],
  ['foo/**/bar/**/x', '/home/user/foo/bar', true],
  ['foo/**/bar/**/x', '/home/user/foo/blaaa/blaz/bar/shared/work/x', true],
  ['/foo/*/qux', '/foo/bar', true],
  ['/foo/*/qux', '/foo/bar/boo', false],
  ['/foo/*/qux', '/foo/bar/boo/xx', false],
  ['/baz/bar', '/foo', false],
  ['/foo', '/foo/bar', true],
  ['/*', '/foo', true],
  ['/*', '/foo/bar', true],
  ['/**', '/foo', true],
  ['/*/**', '/foo', true],
  ['/*/**', '/foo/bar', true],
  ['/*/bar', '/foo', true],
  ['/bar/*', '/foo', false],
  ['/foo/*/baz', '/foo/bar', true],
  ['/foo/*/baz', '/foo/baz', true],
  ['/foo/*/baz', '/bar/baz', false],
  ['/**/*', '/foo', true],
  ['/**/bar', '/foo/bar', true],
  // Ours, following restic's childMatch: only the part before `**` decides.
  ['/foo/**/baz', '/bar', false],
  ['/foo/**/baz', '/bar/foo/baz', false],
];

// restic 0.14 filterListTests: [patterns, path, List match, ListWithChild childMayMatch].
const RESTIC_LIST: [patterns: string[], path: string, match: boolean, child: boolean][] = [
  [[], '/foo/bar/test.go', false, false],
  [['*.go'], '/foo/bar/test.go', true, true],
  [['*.go'], '/foo/bar', false, true],
  [['*.c'], '/foo/bar/test.go', false, true],
  [['*.go', '*.c'], '/foo/bar/test.go', true, true],
  [['*'], '/foo/bar/test.go', true, true],
  [['x'], '/foo/bar/test.go', false, true],
  [['?'], '/foo/bar/test.go', false, true],
  [['?', 'x'], '/foo/bar/x', true, true],
  [['/*/*/bar/test.*'], '/foo/bar/test.go', false, false],
  [['/*/*/bar/test.*'], '/foo/bar/bar', false, true],
  [['/*/*/bar/test.*', '*.go'], '/foo/bar/test.go', true, true],
  [['', '*.c'], '/foo/bar/test.go', false, true],
  [['!**', '*.go'], '/foo/bar/test.go', true, true],
  [['!**', '*.c'], '/foo/bar/test.go', false, true],
  [['/foo/*/test.*', '!*.c'], '/foo/bar/test.c', false, false],
  [['/foo/*/test.*', '!*.c'], '/foo/bar/test.go', true, true],
  [['/foo/*/*', '!test.*', '*.c'], '/foo/bar/test.go', false, true],
  [['/foo/*/*', '!test.*', '*.c'], '/foo/bar/test.c', true, true],
  [['/foo/*/*', '!test.*', '*.c'], '/foo/bar/file.go', true, true],
  [['/**/*', '!/foo', '/foo/*', '!/foo/bar'], '/foo/other/test.go', true, true],
  [['/**/*', '!/foo', '/foo/*', '!/foo/bar'], '/foo/bar', false, false],
  [['/**/*', '!/foo', '/foo/*', '!/foo/bar'], '/foo/bar/test.go', false, false],
  [['/**/*', '!/foo', '/foo/*', '!/foo/bar'], '/foo/bar/test.go/child', false, false],
  [['/**/*', '!/foo', '/foo/*', '!/foo/bar', '/foo/bar/test*'], '/foo/bar/test.go/child', true, true],
  [['/foo/bar/*'], '/foo', false, true],
  [['/foo/bar/*', '!/foo/bar/[a-m]*'], '/foo', false, true],
  [['/foo/**/test.c'], '/foo/bar/foo/bar/test.c', true, true],
  [['/foo/*/test.c'], '/foo/bar/foo/bar/test.c', false, false],
];

// Go's filepath.Match on single components: the pattern grammar restic relies on.
const GO_MATCH: [pattern: string, name: string, match: boolean][] = [
  ['abc', 'abc', true],
  ['*', 'abc', true],
  ['*c', 'abc', true],
  ['a*', 'a', true],
  ['a*', 'abc', true],
  ['a*b*c*d*e*', 'axbxcxdxexxx', true],
  ['*x', 'xxx', true],
  ['ab[c]', 'abc', true],
  ['ab[b-d]', 'abc', true],
  ['ab[e-g]', 'abc', false],
  ['ab[^c]', 'abc', false],
  ['ab[^b-d]', 'abc', false],
  ['ab[^e-g]', 'abc', true],
  ['ab[!c]', 'ab!', true], // `!` is a plain character in Go classes
  ['ab[!c]', 'abd', false],
  ['a\\*b', 'a*b', true],
  ['a\\*b', 'ab', false],
  ['a?b', 'a☺b', true],
  ['a[^a]b', 'a☺b', true],
  ['a???b', 'a☺b', false],
  ['a?b', 'a😀b', true], // one rune, two UTF-16 code units
  ['[a-ζ]*', 'α', true],
  ['*[a-ζ]', 'A', false],
  ['[\\]a]', ']', true],
  ['[\\-]', '-', true],
  ['[x\\-]', 'x', true],
  ['[x\\-]', '-', true],
  ['[x\\-]', 'z', false],
  ['[\\-x]', '-', true],
  ['[\\-x]', 'a', false],
  ['[z-a]', 'm', false], // a reversed range matches nothing
  ['[^z-a]', 'm', true],
  ['a.b', 'axb', false], // no regular-expression leaks
  ['(a|b)', 'a', false],
  ['(a|b)', '(a|b)', true],
  ['$^+{}', '$^+{}', true],
  ['a*', 'a\nb', true],
  // Malformed patterns (Go: ErrBadPattern) match nothing.
  ['[]a]', ']', false],
  ['[-]', '-', false],
  ['[x-]', 'x', false],
  ['[-x]', 'x', false],
  ['\\', 'a', false],
  ['[a-b-c]', 'a', false],
  ['[', 'a', false],
  ['[^', 'a', false],
  ['[^bc', 'a', false],
  ['a[', 'a', false],
  ['a[', 'ab', false],
];

describe('patterns (restic internal/filter)', () => {
  it.each(RESTIC_MATCH)('Match(%j, %j) is %s', (pattern, path, want) => {
    expect(match(pattern, path)).toBe(want);
  });

  it.each(RESTIC_CHILD)('ChildMatch(%j, %j) is %s', (pattern, dir, want) => {
    expect(childMayMatch(parsePattern(pattern), comps(dir))).toBe(want);
  });

  it.each(RESTIC_LIST)('List(%j, %j) is %s, child %s', (patterns, path, want, child) => {
    const parsed = patterns.filter((p) => p !== '').map(parsePattern); // ParsePatterns drops ""
    expect(matchAny(parsed, comps(path))).toBe(want);
    expect(childMayMatchAny(parsed, comps(path))).toBe(child);
  });

  it.each(GO_MATCH)('filepath.Match(%j, %j) is %s', (pattern, name, want) => {
    expect(matchComponent(pattern, name)).toBe(want);
  });

  it('parses anchoring, negation and filepath.Clean', () => {
    expect(parsePattern('/a/b/')).toEqual({ parts: ['a', 'b'], anchored: true });
    expect(parsePattern('a//./b')).toEqual({ parts: ['a', 'b'], anchored: false });
    expect(parsePattern('!*.tmp')).toEqual({ parts: ['*.tmp'], anchored: false, negated: true });
    expect(parsePattern('!/cache')).toEqual({ parts: ['cache'], anchored: true, negated: true });
    expect(parsePattern('a/../../b')).toEqual({ parts: ['..', 'b'], anchored: false });
    expect(parsePattern('/../b')).toEqual({ parts: ['b'], anchored: true });
    expect(parsePattern('')).toEqual({ parts: [], anchored: false });
  });

  it('"/" matches everything, as in restic (its cleaned form ends in the ** marker)', () => {
    expect(match('/', '/any/path')).toBe(true);
    expect(matchAny([parsePattern('/')], ['x'])).toBe(true);
  });

  it('an empty pattern never matches and never opens a directory', () => {
    expect(matchPattern(parsePattern(''), ['a'])).toBe(false);
    expect(childMayMatch(parsePattern(''), ['a'])).toBe(false);
  });

  it('a negated pattern alone matches nothing, and only takes back earlier matches', () => {
    expect(matchAny([parsePattern('!*.c')], ['a.go'])).toBe(false);
    expect(matchAny([parsePattern('!*.c'), parsePattern('*')], ['a.c'])).toBe(true); // order matters
    expect(matchAny([parsePattern('*'), parsePattern('!*.c')], ['a.c'])).toBe(false);
  });

  it('escaped metacharacters match names that contain them (how the app selects one entry)', () => {
    const name = 'weird [draft] *v2?.txt';
    const pattern = '/' + name.replace(/[*?[\\]/g, (c) => '\\' + c);
    expect(match(pattern, '/' + name)).toBe(true);
    expect(match(pattern, '/weird d *v2?.txt')).toBe(false);
  });
});
