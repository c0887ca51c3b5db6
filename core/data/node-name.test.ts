import { describe, expect, it } from 'vitest';
import { GoTime, type Node } from '.';
import { assertSafePath, nameProblem, partitionByName } from './node-name';

const T = GoTime.parse('2024-01-01T00:00:00Z');
const file = (name: string): Node => ({ name, type: 'file', mtime: T, atime: T, ctime: T, uid: 0, gid: 0, content: [] });

describe('nameProblem', () => {
  it.each([
    ['', 'empty'],
    ['.', 'dot'],
    ['..', 'dot-dot'],
    ['../x', 'slash'],
    ['a/b', 'slash'],
    ['/', 'slash'],
    ['x\0y', 'nul'],
  ])('refuses %j (%s)', (name, problem) => {
    expect(nameProblem(name)).toBe(problem);
  });

  it.each(['...', '.hidden', '..x', 'x..', 'back\\slash', ' ', 'caf\u00e9', '\ufffd'])('accepts %j', (name) => {
    expect(nameProblem(name)).toBeUndefined();
  });
});

describe('partitionByName', () => {
  it('keeps the first of a repeated name and refuses the rest, in order', () => {
    const { valid, refused } = partitionByName([file('a'), file('..'), file('a'), file('b'), file(''), file('a')]);
    expect(valid.map((n) => n.name)).toEqual(['a', 'b']);
    expect(refused.map((r) => [r.node.name, r.problem])).toEqual([
      ['..', 'dot-dot'],
      ['a', 'repeated'],
      ['', 'empty'],
      ['a', 'repeated'],
    ]);
  });
});

describe('assertSafePath', () => {
  it('names the folder and the refused component', () => {
    expect(() => assertSafePath(['ok', 'sub', '..', 'x'])).toThrow(
      expect.objectContaining({ code: 'INVALID_NAME', message: expect.stringMatching(/^\/ok\/sub: .*"\.\."/) }),
    );
    expect(() => assertSafePath(['ok', 'fine'])).not.toThrow();
  });
});
