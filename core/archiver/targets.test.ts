import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import type { SourceFS } from './source';
import { buildTargetTree, type TargetDir } from './targets';

// Only components/join matter here.
const fs = { components: (p: string) => p.split('/').filter(Boolean), join: (c: string[]) => '/' + c.join('/') } as SourceFS;

/** A readable outline: "name*" for targets, children in brackets. */
const outline = (dirs: TargetDir[]): string =>
  dirs.map((d) => `${d.name}${d.target ? '*' : ''}${d.children.length ? `[${outline(d.children)}]` : ''}`).join(',');

describe('buildTargetTree', () => {
  it.each([
    [['/a/b'], 'a[b*]'],
    [['/a'], 'a*'],
    [['/a/b', '/a/c'], 'a[b*,c*]'],
    [['/a/b/c', '/a/d'], 'a[d*,b[c*]]'],
    [['/a/b', '/x/y'], 'a[b*],x[y*]'],
    [['/a/b', '/a/b/c'], 'a[b*]'],
    [['/a/b/c', '/a/b'], 'a[b*]'],
    [['/a/b/c', '/a/b/d', '/a'], 'a*'],
    [['/a/b', '/a/b'], 'a[b*]'],
    [['/a/b', '/a/bc'], 'a[b*,bc*]'],
  ])('%j → %s', (targets, want) => {
    expect(outline(buildTargetTree(fs, targets))).toBe(want);
  });

  it("records each component's own path for stat", () => {
    const [a] = buildTargetTree(fs, ['/a/b/c']);
    expect(a!.path).toBe('/a');
    expect(a!.children[0]!.path).toBe('/a/b');
    expect(a!.children[0]!.children[0]).toEqual({ name: 'c', path: '/a/b/c', target: true, children: [] });
  });

  it('refuses the root itself', () => {
    let e: unknown;
    try {
      buildTargetTree(fs, ['/a', '/']);
    } catch (x) {
      e = x;
    }
    expect(isCairnError(e, 'USAGE')).toBe(true);
  });
});
