import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../core/forget';
import { checkForm, emptyForm, fromPolicyInput, toPolicyInput } from './policy-form';

describe('policy form', () => {
  it('becomes restic options and back, and restic reads the same policy', () => {
    const form = {
      ...emptyForm(),
      keepLast: ' 3 ',
      keepDaily: '7',
      keepMonthly: 'unlimited',
      keepWithin: '1y2m',
      keepWithinDaily: '30d',
      keepTags: 'keep\nimportant, photos\n\n',
    };
    const input = toPolicyInput(form);
    expect(input).toEqual({
      keepLast: '3',
      keepDaily: '7',
      keepMonthly: 'unlimited',
      keepWithin: '1y2m',
      keepWithinDaily: '30d',
      keepTag: ['keep', 'important, photos'],
    });
    const p = parsePolicy(input);
    expect(p.last).toBe(3);
    expect(p.monthly).toBe(-1);
    expect(p.tags).toEqual([['keep'], ['important', 'photos']]);
    expect(p.within).toEqual({ years: 1, months: 2, days: 0, hours: 0 });
    expect(toPolicyInput(fromPolicyInput(input))).toEqual(input);
    expect(fromPolicyInput({ keepYearly: -1 }).keepYearly).toBe('unlimited');
  });

  it('says in words what it keeps, or what is wrong', () => {
    const ok = checkForm({ ...emptyForm(), keepLast: '2', keepWeekly: '4' });
    expect(ok.ok && ok.rules).toEqual(['the 2 newest snapshots', 'the newest snapshot of each of the 4 most recent weeks (Monday to Sunday) that have one']);
    const empty = checkForm(emptyForm());
    expect(empty).toMatchObject({ ok: false, empty: true });
    const bad = checkForm({ ...emptyForm(), keepDaily: '-1' });
    expect(bad).toMatchObject({ ok: false, empty: false });
    expect(!bad.ok && bad.message).toContain("use 'unlimited'");
    const badDuration = checkForm({ ...emptyForm(), keepWithin: '3 weeks' });
    expect(badDuration.ok).toBe(false);
  });
});
