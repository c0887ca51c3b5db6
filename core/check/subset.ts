// Which packs `check --read-data-subset` reads (restic cmd_check.go): "n/t" reads the packs
// whose ID's first byte modulo t is n-1 (the same packs every time, so t runs with n = 1…t
// read everything once); "x%" and a size ("500M") read a random share of the indexed packs.

import { CairnError } from '../errors';
import type { ID } from '../id';

export type Subset = { kind: 'bucket'; n: number; t: number } | { kind: 'percent'; percent: number } | { kind: 'size'; bytes: number };

/** restic's totalBucketsMax: only the first byte of the ID decides the bucket. */
const MAX_BUCKETS = 256;

const invalid = () => new CairnError('USAGE', 'check flag --read-data-subset has invalid value, please see documentation');

/** Go strconv.ParseUint / ParseInt of a plain decimal (no sign for uint, no spaces, no underscores). */
function parseDecimal(s: string, signed: boolean): number | undefined {
  return (signed ? /^[+-]?\d+$/ : /^\d+$/).test(s) ? Number(s) : undefined;
}

/** restic ui.ParseBytes: a decimal count with an optional b/k/m/g/t suffix (powers of 1024). */
function parseBytes(s: string): number | undefined {
  const units: Record<string, number> = { b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
  const unit = units[s.slice(-1).toLowerCase()];
  const n = parseDecimal(unit ? s.slice(0, -1) : s, true);
  return n === undefined ? undefined : n * (unit ?? 1);
}

export function parseSubset(s: string): Subset {
  const parts = s.split('/');
  const ints = parts.map((p) => parseDecimal(p, false));
  if (ints.every((n) => n !== undefined)) {
    // restic: any list of integers parses here, and only n/t is valid ("50" is not a size).
    if (ints.length !== 2) throw invalid();
    const [n, t] = ints as [number, number];
    if (n === 0 || t === 0 || n > t)
      throw new CairnError('USAGE', 'check flag --read-data-subset=n/t values must be positive integers, and n <= t, e.g. --read-data-subset=1/2');
    if (t > MAX_BUCKETS) throw new CairnError('USAGE', `check flag --read-data-subset=n/t t must be at most ${MAX_BUCKETS}`);
    return { kind: 'bucket', n, t };
  }
  if (s.endsWith('%')) {
    const body = s.slice(0, -1);
    const percent = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body) ? Number(body) : NaN;
    if (Number.isNaN(percent)) throw invalid();
    if (percent <= 0 || percent > 100) throw new CairnError('USAGE', 'check flag --read-data-subset=x% x must be above 0.0% and at most 100.0%');
    return { kind: 'percent', percent };
  }
  const bytes = parseBytes(s);
  if (bytes === undefined) throw invalid();
  if (bytes <= 0) throw new CairnError('USAGE', 'check flag --read-data-subset=n n must be above 0');
  return { kind: 'size', bytes };
}

/** `count` of `ids` picked at random (restic: a permutation from a time-seeded source). */
function randomShare(ids: ID[], percent: number, random: () => number): ID[] {
  let count = Math.floor(ids.length * (percent / 100));
  if (ids.length > 0 && count < 1) count = 1;
  const pool = [...ids];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, count);
}

export interface SubsetChoice {
  packs: ID[];
  /** restic's line saying what is read. */
  message: string;
}

/** Picks the packs to read among `packs` (ID → size, the indexed packs). */
export function selectSubset(packs: ReadonlyMap<ID, number>, subset: Subset, random: () => number = Math.random): SubsetChoice {
  const ids = [...packs.keys()];
  if (subset.kind === 'bucket') {
    const chosen = ids.filter((id) => parseInt(id.slice(0, 2), 16) % subset.t === subset.n - 1);
    return { packs: chosen, message: `read group #${subset.n} of ${chosen.length} data packs (out of total ${ids.length} packs in ${subset.t} groups)` };
  }
  if (subset.kind === 'percent') return { packs: randomShare(ids, subset.percent, random), message: `read ${subset.percent.toFixed(1)}% of packfiles` };
  let repoSize = 0;
  for (const size of packs.values()) repoSize += size;
  const bytes = Math.min(subset.bytes, repoSize);
  const percent = repoSize > 0 ? (bytes / repoSize) * 100 : 100;
  const chosen = repoSize > 0 ? randomShare(ids, percent, random) : ids;
  return { packs: chosen, message: `read ${bytes} bytes (${percent.toFixed(1)}%) of data packs` };
}
