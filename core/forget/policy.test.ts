import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { emptyPolicy, isEmptyPolicy, parseCount, parsePolicy, parseWithin, policyString, splitTagList, type ForgetPolicy } from './policy';

const policy = (p: Partial<ForgetPolicy>): ForgetPolicy => ({ ...emptyPolicy(), ...p });
const dur = (years: number, months: number, days: number, hours: number) => ({ years, months, days, hours });

describe('parseCount (restic 0.17+ ForgetPolicyCount)', () => {
  it.each([
    ['0', 0],
    ['7', 7],
    ['+3', 3],
    ['007', 7],
    ['-0', 0],
    ['unlimited', -1],
    [5, 5],
    [-1, -1], // a number -1 from a form is "unlimited"
  ])('%j → %i', (text, n) => {
    expect(parseCount(text)).toBe(n);
  });

  // restic 0.14 read "-1" as "keep nothing"; 0.17+ refuses it and wants "unlimited".
  it.each([
    ['-1', "negative values not allowed, use 'unlimited' instead"],
    ['-7', "negative values not allowed, use 'unlimited' instead"],
    [-2, "negative values not allowed, use 'unlimited' instead"],
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [' 1', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['Unlimited', 'strconv.ParseInt: parsing "Unlimited": invalid syntax'],
    ['1_000', 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    [1.5, 'not an integer'],
  ])('refuses %j: %s', (text, message) => {
    let err: unknown;
    try {
      parseCount(text, 'keep-daily');
    } catch (e) {
      err = e;
    }
    expect(isCairnError(err, 'BAD_POLICY')).toBe(true);
    expect((err as Error).message).toContain(`for --keep-daily: ${message}`);
  });
});

describe('parseWithin', () => {
  it('reads a duration and refuses negative parts, as restic verifyForgetOptions', () => {
    expect(parseWithin('1y6m')).toEqual(dur(1, 6, 0, 0));
    expect(() => parseWithin('1y-6m', 'keep-within-daily')).toThrow(
      'invalid argument "1y-6m" for --keep-within-daily: durations containing negative values are not allowed for --keep-within*',
    );
    expect(() => parseWithin('6w')).toThrow('invalid argument "6w" for --keep-within: invalid unit \'w\' found after number 6');
  });
});

describe('splitTagList and parsePolicy', () => {
  it.each([
    ['a,b', ['a', 'b']],
    [' a , b ', ['a', 'b']],
    ['', ['']],
    ['a,', ['a', '']],
  ])('splits %j into %j', (text, tags) => {
    expect(splitTagList(text)).toEqual(tags);
  });

  it('fills every field from restic-style option text', () => {
    const p = parsePolicy({
      keepLast: '3',
      keepHourly: 'unlimited',
      keepDaily: 7,
      keepWeekly: '4',
      keepMonthly: '12',
      keepYearly: '0',
      keepWithin: '1y',
      keepWithinHourly: '2d',
      keepWithinDaily: '14d',
      keepWithinWeekly: '2m',
      keepWithinMonthly: '1y',
      keepWithinYearly: '10y',
      keepTag: ['keep', 'a, b', ''],
    });
    expect(p).toEqual({
      last: 3,
      hourly: -1,
      daily: 7,
      weekly: 4,
      monthly: 12,
      yearly: 0,
      within: dur(1, 0, 0, 0),
      withinHourly: dur(0, 0, 2, 0),
      withinDaily: dur(0, 0, 14, 0),
      withinWeekly: dur(0, 2, 0, 0),
      withinMonthly: dur(1, 0, 0, 0),
      withinYearly: dur(10, 0, 0, 0),
      tags: [['keep'], ['a', 'b'], ['']],
    });
    expect(isEmptyPolicy(p)).toBe(false);
  });

  it.each([
    [{}, true],
    [{ keepLast: '0', keepWithin: '0d' }, true],
    [{ keepTag: [''] }, false],
    [{ keepWithinYearly: '1h' }, false],
    [{ keepYearly: 'unlimited' }, false],
  ])('isEmptyPolicy(%j) is %s', (input, empty) => {
    expect(isEmptyPolicy(parsePolicy(input))).toBe(empty);
  });
});

describe('policyString (restic 0.18 "Applying Policy: …")', () => {
  it.each([
    [policy({ last: 1 }), 'keep 1 latest snapshots'],
    // printed by restic 0.14 for --keep-last 1 --keep-tag a,b --keep-tag c --keep-within 1y2m --keep-within-daily 3d
    [
      policy({ last: 1, withinDaily: dur(0, 0, 3, 0), tags: [['a', 'b'], ['c']], within: dur(1, 2, 0, 0) }),
      'keep 1 latest snapshots, daily snapshots within 3d and all snapshots with tags [[a, b] [c]] and all snapshots within 1y2m of the newest',
    ],
    [policy({ daily: 7, weekly: 4, monthly: -1 }), 'keep 7 daily, 4 weekly, all monthly snapshots'],
    [policy({ withinHourly: dur(0, 0, 2, 0), withinYearly: dur(5, 0, 0, 0) }), 'keep hourly snapshots within 2d, yearly snapshots within 5y'],
    [policy({ tags: [['']] }), 'keep all snapshots with tags [[]]'],
    [policy({ within: dur(0, 0, 0, 36) }), 'keep all snapshots within 36h of the newest'],
    [emptyPolicy(), 'remove'],
  ])('%j → %s', (p, text) => {
    expect(policyString(p)).toBe(text);
  });
});
