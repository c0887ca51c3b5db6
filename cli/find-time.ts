// restic find's --oldest/--newest: the layouts it tries, read in the local zone unless the
// text names an offset (a zone abbreviation other than the local one counts as UTC, as Go's
// ParseInLocation fabricates it).

import { CairnError } from '../core/errors';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  /** Minutes east of UTC; undefined = local zone. */
  offset?: number;
}

function zone(offset: string | undefined, abbr: string | undefined): number | undefined {
  if (offset) return (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
  if (abbr) return abbr === localAbbreviation() ? undefined : 0;
  return undefined;
}

function localAbbreviation(): string {
  return new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value ?? '';
}

function parts(s: string): Parts | undefined {
  const clock = '(?: (\\d{2}):(\\d{2})(?::(\\d{2})(?: ([+-]\\d{4})| ([A-Z]{3,5}))?)?)?';
  let m = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})${clock}$`).exec(s);
  if (m) return { y: +m[1]!, mo: +m[2]!, d: +m[3]!, h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0), offset: zone(m[7], m[8]) };
  m = new RegExp(`^(\\d{2})\\.(\\d{2})\\.(\\d{4})${clock}$`).exec(s);
  if (m) return { y: +m[3]!, mo: +m[2]!, d: +m[1]!, h: +(m[4] ?? 0), mi: +(m[5] ?? 0), s: +(m[6] ?? 0), offset: zone(m[7], m[8]) };
  m = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) ([+-]\d{4}) [A-Z]{3,5} (\d{4})$/.exec(s);
  if (m && MONTHS.includes(m[1]!))
    return { y: +m[7]!, mo: MONTHS.indexOf(m[1]!) + 1, d: +m[2]!, h: +m[3]!, mi: +m[4]!, s: +m[5]!, offset: zone(m[6], undefined) };
  return undefined;
}

/** Milliseconds since the epoch of a --oldest/--newest value. */
export function parseFindTime(s: string): number {
  const p = parts(s);
  const bad = () => new CairnError('USAGE', `unable to parse time: ${JSON.stringify(s)}`);
  if (!p || p.mo < 1 || p.mo > 12 || p.d < 1 || p.d > 31 || p.h > 23 || p.mi > 59 || p.s > 59) throw bad();
  if (p.offset === undefined) {
    const d = new Date(p.y, p.mo - 1, p.d, p.h, p.mi, p.s);
    if (d.getDate() !== p.d) throw bad();
    return d.getTime();
  }
  return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - p.offset * 60_000;
}
