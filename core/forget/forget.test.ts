import { describe, expect, it } from 'vitest';
import { GoTime } from '../data/go-time';
import { isCairnError } from '../errors';
import { applyPolicy, checkGroups, checkPolicy, removedIDs } from './forget';
import { parseGroupBy } from './group';
import { parsePolicy } from './policy';
import { entry, idOf, labels } from '../../test/helpers/snapshot-entries';

const NOW = GoTime.parse('2025-01-15T12:00:00Z');
const LIST = [
  entry('a1', '2024-12-01T10:00:00+01:00', { host: 'a', tags: ['daily'] }),
  entry('a2', '2024-12-02T10:00:00+01:00', { host: 'a' }),
  entry('a3', '2024-12-03T10:00:00+01:00', { host: 'a', tags: ['daily'] }),
  entry('b1', '2024-12-01T10:00:00-05:00', { host: 'b', paths: ['/home', '/etc'] }),
  entry('b2', '2024-12-02T10:00:00-05:00', { host: 'b', paths: ['/etc', '/home'] }),
];

describe('applyPolicy', () => {
  it('applies the policy to each group alone (default host,paths)', () => {
    const groups = applyPolicy(LIST, parsePolicy({ keepLast: 1 }), NOW);
    expect(groups.map((g) => [g.key, labels(g.keep), labels(g.remove)])).toEqual([
      [{ hostname: 'a', paths: ['/data'], tags: null }, ['a3'], ['a2', 'a1']],
      [{ hostname: 'b', paths: ['/etc', '/home'], tags: null }, ['b2'], ['b1']],
    ]);
    expect(removedIDs(groups)).toEqual([idOf('a2'), idOf('a1'), idOf('b1')]);
  });

  it.each([
    ['', [[['a3'], ['b2', 'a2', 'b1', 'a1']]]], // one group: 10:00 -05:00 is 15:00Z
    [
      'tags',
      [
        [['b2'], ['a2', 'b1']],
        [['a3'], ['a1']],
      ],
    ],
  ])('--group-by %j', (by, want) => {
    const groups = applyPolicy(LIST, parsePolicy({ keepLast: 1 }), NOW, { groupBy: parseGroupBy(by) });
    expect(groups.map((g) => [labels(g.keep), labels(g.remove)])).toEqual(want);
  });
});

describe('restic 0.18’s refusals', () => {
  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (e) {
      return isCairnError(e) ? [e.code, e.message] : ['thrown', String(e)];
    }
    return undefined;
  };

  it('an empty policy, unless removing everything the filters select is asked for', () => {
    const empty = parsePolicy({});
    expect(refusal(() => checkPolicy(empty))).toEqual(['BAD_POLICY', 'no policy was specified, no snapshots will be removed']);
    expect(refusal(() => checkPolicy(empty, { allowRemoveAll: true }))).toEqual([
      'BAD_POLICY',
      '--unsafe-allow-remove-all is not allowed unless a snapshot filter option is specified',
    ]);
    expect(refusal(() => checkPolicy(empty, { allowRemoveAll: true, filtered: true }))).toBeUndefined();
    expect(refusal(() => checkPolicy(parsePolicy({ keepTag: ['x'] })))).toBeUndefined();
  });

  it('a policy that keeps nothing of a group (a mistyped --keep-tag)', () => {
    const policy = parsePolicy({ keepTag: ['daily'] });
    const groups = applyPolicy(LIST, policy, NOW);
    expect(refusal(() => checkGroups(groups, policy))).toEqual([
      'FORGET_REFUSED',
      'refusing to delete last snapshot of snapshot group "host b, path [/etc /home]"',
    ]);
    expect(refusal(() => checkGroups(applyPolicy(LIST, policy, NOW, { groupBy: parseGroupBy('') }), policy))).toBeUndefined();
    // with an empty policy (allowed by --unsafe-allow-remove-all) removing everything is the point
    const empty = parsePolicy({});
    expect(refusal(() => checkGroups(applyPolicy(LIST, empty, NOW), empty))).toBeUndefined();
  });
});
