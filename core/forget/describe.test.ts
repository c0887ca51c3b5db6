import { describe, expect, it } from 'vitest';
import { describePolicy, describeRules, durationInWords } from './describe';
import { parsePolicy } from './policy';

describe('describePolicy', () => {
  it.each([
    [{ keepLast: 1 }, ['the newest snapshot']],
    [{ keepLast: 'unlimited' }, ['every snapshot']],
    [
      { keepDaily: 7, keepWeekly: 1, keepMonthly: 'unlimited' },
      [
        'the newest snapshot of each of the 7 most recent days that have one',
        'the newest snapshot of the most recent week (Monday to Sunday) that has one',
        'the newest snapshot of every month that has one',
      ],
    ],
    [
      { keepTag: ['a,b', '', ',a', 'x'], keepWithin: '1y6m12h' },
      [
        'every snapshot tagged "a" and "b"',
        'every snapshot without tags',
        'every snapshot without tags',
        'every snapshot tagged "x"',
        'every snapshot made within 1 year, 6 months and 12 hours before the newest one',
      ],
    ],
    [{ keepTag: ['a,'] }, ['no snapshot (the tag list "a," cannot match)']],
    [{ keepWithinHourly: '2d' }, ['the newest snapshot of each hour within 2 days before the newest one']],
  ])('%j', (input, rules) => {
    expect(describeRules(parsePolicy(input))).toEqual(rules);
  });

  it('says what happens to the rest, and to short histories', () => {
    expect(describePolicy(parsePolicy({ keepDaily: 7, keepTag: ['keep'] }))).toBe(
      'In each group, keeps every snapshot tagged "keep" and the newest snapshot of each of the 7 most recent days that have one. ' +
        'When a group has fewer snapshots than a rule asks for, its oldest snapshot is kept as well. ' +
        'Snapshots dated in the future count as the newest. Everything else is removed.',
    );
    expect(describePolicy(parsePolicy({ keepTag: ['keep'] }))).toBe(
      'In each group, keeps every snapshot tagged "keep". Snapshots dated in the future count as the newest. Everything else is removed.',
    );
    expect(describePolicy(parsePolicy({}))).toBe('No rule is set, so nothing would be kept; forget refuses to run without a rule.');
    expect(durationInWords({ years: 1, months: 0, days: 1, hours: 0 })).toBe('1 year and 1 day');
  });
});
