// restic's retention durations (internal/data/duration.go): whole years, months, days and
// hours, written like "1y6m3d12h", applied as calendar arithmetic (Go's AddDate, then hours).

import { CairnError } from '../errors';
import type { GoTime, ZoneRules } from '../data/go-time';

export interface Duration {
  years: number;
  months: number;
  days: number;
  hours: number;
}

export const ZERO_DURATION: Duration = Object.freeze({ years: 0, months: 0, days: 0, hours: 0 });

export function isZeroDuration(d: Duration): boolean {
  return d.years === 0 && d.months === 0 && d.days === 0 && d.hours === 0;
}

/** restic's Duration.String: the non-zero parts in the order y, m, d, h ("" for zero). */
export function formatDuration(d: Duration): string {
  return (d.years ? `${d.years}y` : '') + (d.months ? `${d.months}m` : '') + (d.days ? `${d.days}d` : '') + (d.hours ? `${d.hours}h` : '');
}

// Go's strings.TrimSpace: Unicode White_Space at both ends.
const GO_SPACE_AT_ENDS =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

const UNITS: Record<string, keyof Duration> = { y: 'years', m: 'months', d: 'days', h: 'hours' };

function bad(text: string, reason: string): never {
  throw new CairnError('BAD_POLICY', reason, { detail: { value: text } });
}

/**
 * restic's ParseDuration: surrounding white space ignored, then numbers (optionally
 * negative) each followed by a unit y, m, d or h; a repeated unit overwrites the earlier
 * one; "" is the zero duration. There is no week unit.
 */
export function parseDuration(text: string): Duration {
  const d = { ...ZERO_DURATION };
  let rest = text.replace(GO_SPACE_AT_ENDS, '');
  while (rest !== '') {
    const m = /^(-?)([0-9]*)/.exec(rest)!;
    if (m[2] === '') bad(text, 'no number found');
    const n = Number(m[1]! + m[2]!);
    if (!Number.isSafeInteger(n)) bad(text, `number ${m[1]}${m[2]} is too large`);
    rest = rest.slice(m[0].length);
    if (rest === '') bad(text, `no unit found after number ${n}`);
    const unit = UNITS[rest[0]!];
    if (!unit) bad(text, `invalid unit '${String.fromCodePoint(rest.codePointAt(0)!)}' found after number ${n}`);
    d[unit] = n;
    rest = rest.slice(1);
  }
  return d;
}

/**
 * The start of a window `d` long that ends at `latest`: restic's
 * latest.AddDate(-y, -m, -d).Add(-h hours), in `zone` when `latest` is read in a zone with
 * rules (see forget.ts), else in latest's own offset. The hours wrap as Go's int64
 * time.Duration does.
 */
export function windowStart(latest: GoTime, d: Duration, zone?: ZoneRules): GoTime {
  const hours = BigInt.asIntN(64, BigInt(-d.hours) * 3_600_000_000_000n);
  return latest.addDate(-d.years, -d.months, -d.days, zone).addNanos(hours);
}
