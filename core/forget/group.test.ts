import { describe, expect, it } from 'vitest';
import { formatGroupBy, groupKeyString, groupSnapshots, parseGroupBy } from './group';
import { entry, labels } from '../../test/helpers/snapshot-entries';

describe('parseGroupBy (restic splitSnapshotGroupBy)', () => {
  it.each([
    ['host,paths', { host: true, paths: true, tags: false }, 'host,paths'],
    ['hosts,path,tag', { host: true, paths: true, tags: true }, 'host,paths,tags'],
    ['tags', { host: false, paths: false, tags: true }, 'tags'],
    ['', { host: false, paths: false, tags: false }, ''],
    [',host,', { host: true, paths: false, tags: false }, 'host'],
  ])('%j', (text, g, back) => {
    expect(parseGroupBy(text)).toEqual(g);
    expect(formatGroupBy(g)).toBe(back);
  });

  it('refuses an unknown option', () => {
    expect(() => parseGroupBy('host,user')).toThrow('unknown grouping option: "user"');
    expect(() => parseGroupBy('host paths')).toThrow('unknown grouping option: "host paths"');
  });
});

describe('groupSnapshots', () => {
  const list = [
    entry('a', '2024-01-01T00:00:00Z', { host: 'h1', paths: ['/b', '/a'], tags: ['y', 'x'] }),
    entry('b', '2024-01-02T00:00:00Z', { host: 'h1', paths: ['/a', '/b'] }),
    entry('c', '2024-01-03T00:00:00Z', { host: 'h2', paths: ['/a', '/b'], tags: ['x', 'y'] }),
    entry('d', '2024-01-04T00:00:00Z', { host: 'h1', paths: ['/a'], tags: ['x'] }),
  ];

  // [group-by, [key, labels]…] in key order
  it.each([
    [
      'host,paths',
      [
        [{ hostname: 'h1', paths: ['/a'], tags: null }, ['d']],
        [{ hostname: 'h1', paths: ['/a', '/b'], tags: null }, ['a', 'b']],
        [{ hostname: 'h2', paths: ['/a', '/b'], tags: null }, ['c']],
      ],
    ],
    [
      'paths,tags',
      [
        [{ hostname: '', paths: ['/a'], tags: ['x'] }, ['d']],
        [{ hostname: '', paths: ['/a', '/b'], tags: null }, ['b']],
        [{ hostname: '', paths: ['/a', '/b'], tags: ['x', 'y'] }, ['a', 'c']],
      ],
    ],
    ['', [[{ hostname: '', paths: null, tags: null }, ['a', 'b', 'c', 'd']]]],
  ])('by %j', (by, want) => {
    const groups = groupSnapshots(list, parseGroupBy(by));
    expect(groups.map((g) => [g.key, labels(g.entries)])).toEqual(want);
  });

  it('sorts every snapshot’s paths, and its tags when grouping by them, without changing the input', () => {
    const [g] = groupSnapshots([list[0]!], parseGroupBy('host'));
    expect(g!.entries[0]!.snapshot.paths).toEqual(['/a', '/b']);
    expect(g!.entries[0]!.snapshot.tags).toEqual(['y', 'x']);
    const [t] = groupSnapshots([list[0]!], parseGroupBy('tags'));
    expect(t!.entries[0]!.snapshot.tags).toEqual(['x', 'y']);
    expect(list[0]!.snapshot.paths).toEqual(['/b', '/a']);
    expect(list[0]!.snapshot.tags).toEqual(['y', 'x']);
  });

  it.each([
    [{ hostname: 'h1', paths: ['/a', '/b'], tags: ['x'] }, 'host h1, path [/a /b], tags [x]'],
    [{ hostname: '', paths: null, tags: null }, ''],
    [{ hostname: '', paths: ['/srv'], tags: null }, 'path [/srv]'],
  ])('names %j as %j', (key, text) => {
    expect(groupKeyString(key)).toBe(text);
  });
});
