// The retention form ↔ restic's forget options (core/forget's PolicyInput, restic's flag values
// as text). A field left empty sets no rule; counts take a number or "unlimited"; durations are
// restic's (1y6m3d12h); each line of the tags box is one --keep-tag (tags separated by commas).
// Pure; the engine reads the same PolicyInput with restic's rules (parsePolicy).

import { describeRules, isEmptyPolicy, parsePolicy, type ForgetPolicy, type PolicyInput } from '../../core/forget';

export const COUNT_FIELDS = [
  ['keepLast', 'Keep the last', 'snapshots'],
  ['keepHourly', 'One per hour for', 'hours'],
  ['keepDaily', 'One per day for', 'days'],
  ['keepWeekly', 'One per week for', 'weeks'],
  ['keepMonthly', 'One per month for', 'months'],
  ['keepYearly', 'One per year for', 'years'],
] as const;

export const WITHIN_FIELDS = [
  ['keepWithin', 'Everything made within', 'of the newest'],
  ['keepWithinHourly', 'One per hour within', ''],
  ['keepWithinDaily', 'One per day within', ''],
  ['keepWithinWeekly', 'One per week within', ''],
  ['keepWithinMonthly', 'One per month within', ''],
  ['keepWithinYearly', 'One per year within', ''],
] as const;

type TextField = (typeof COUNT_FIELDS)[number][0] | (typeof WITHIN_FIELDS)[number][0];

/** The form's values as typed. */
export type PolicyForm = Record<TextField, string> & { keepTags: string };

export function emptyForm(): PolicyForm {
  const f = { keepTags: '' } as PolicyForm;
  for (const [k] of [...COUNT_FIELDS, ...WITHIN_FIELDS]) f[k] = '';
  return f;
}

/** The form as restic's options: empty fields left out. */
export function toPolicyInput(form: PolicyForm): PolicyInput {
  const out: PolicyInput = {};
  for (const [k] of [...COUNT_FIELDS, ...WITHIN_FIELDS]) {
    const v = form[k].trim();
    if (v) out[k] = v;
  }
  const tags = form.keepTags
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (tags.length) out.keepTag = tags;
  return out;
}

export function fromPolicyInput(input: PolicyInput | undefined): PolicyForm {
  const f = emptyForm();
  if (!input) return f;
  for (const [k] of [...COUNT_FIELDS, ...WITHIN_FIELDS]) {
    const v = input[k];
    if (v !== undefined) f[k] = v === -1 ? 'unlimited' : String(v);
  }
  f.keepTags = (input.keepTag ?? []).join('\n');
  return f;
}

export type FormCheck = { ok: true; policy: ForgetPolicy; rules: string[] } | { ok: false; empty: boolean; message: string };

/** Reads the form as restic would: the policy and its rules in words, or what is wrong. */
export function checkForm(form: PolicyForm): FormCheck {
  let policy: ForgetPolicy;
  try {
    policy = parsePolicy(toPolicyInput(form));
  } catch (e) {
    return { ok: false, empty: false, message: (e as Error).message };
  }
  if (isEmptyPolicy(policy)) return { ok: false, empty: true, message: 'Set at least one rule: without one, nothing would be kept.' };
  return { ok: true, policy, rules: describeRules(policy) };
}
