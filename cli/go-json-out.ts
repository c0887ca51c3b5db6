// JSON lines as restic's Go encoder writes them: strings with Go's escaping (`<`, `>`, `&`,
// U+2028/9 and control bytes as \u00XX), keys in the given order, no spaces.

import { goJsonString } from '../core/data/go-json';

export type GoValue = string | number | bigint | boolean | null | undefined | GoValue[] | { [k: string]: GoValue };

export function goStringify(v: GoValue): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(goStringify).join(',') + ']';
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(goJsonString(k) + ':' + goStringify(x));
  return '{' + parts.join(',') + '}';
}
