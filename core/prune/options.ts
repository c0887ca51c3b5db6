// prune's knobs as restic 0.18 spells them (cmd/restic/cmd_prune.go verifyPruneOptions):
// --max-unused (a percentage of the used size, a size, or "unlimited"; default 5%),
// --max-repack-size, --repack-small, --repack-smaller-than, --repack-cacheable-only,
// --repack-uncompressed. Sizes are restic's ui.ParseBytes: an integer with an optional
// b/k/m/g/t suffix in powers of 1024.

import { CairnError } from '../errors';

/** How much unused space may remain after prune. */
export type MaxUnused = { kind: 'unlimited' } | { kind: 'percent'; percent: number } | { kind: 'bytes'; bytes: number };

export interface PruneOptions {
  /** Default 5 %. */
  maxUnused?: MaxUnused;
  /** Stop repacking once this many bytes would be repacked (default: no limit). */
  maxRepackBytes?: number;
  /** Packs below 80 % of the pack size count as small (restic 0.18 --repack-small). */
  repackSmall?: boolean;
  /** Packs below this many bytes count as small (--repack-smaller-than; wins over repackSmall). */
  repackSmallerThan?: number;
  /** Repack only tree packs (the ones restic caches). */
  repackCacheableOnly?: boolean;
  /** Repack (and compress) every pack holding uncompressed data (v2 repositories). */
  repackUncompressed?: boolean;
}

export const DEFAULT_MAX_UNUSED: MaxUnused = { kind: 'percent', percent: 5 };

const usage = (message: string) => new CairnError('USAGE', message);

/** restic's ui.ParseBytes. */
export function parseSize(s: string): number {
  if (s === '') throw usage('expected size, got empty string');
  const units: Record<string, number> = { b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
  const unit = units[s[s.length - 1]!.toLowerCase()];
  const digits = unit === undefined ? s : s.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) throw usage(`strconv.ParseInt: parsing ${JSON.stringify(digits)}: invalid syntax`);
  const value = Number(digits) * (unit ?? 1);
  if (value < 0 || !Number.isSafeInteger(value)) throw usage(`ParseSize: ${JSON.stringify(digits)}: value out of range`);
  return value;
}

/** --max-unused: "unlimited", "<p>%" (0 ≤ p < 100) or a size. */
export function parseMaxUnused(raw: string): MaxUnused {
  const s = raw.trim();
  if (s === '') throw usage(`invalid value for --max-unused: ${JSON.stringify(raw)}`);
  if (s === 'unlimited') return { kind: 'unlimited' };
  if (s.endsWith('%')) {
    const p = Number(s.slice(0, -1));
    if (s.length === 1 || !Number.isFinite(p)) throw usage(`invalid percentage ${JSON.stringify(raw)} passed for --max-unused`);
    if (p < 0) throw usage('percentage for --max-unused must be positive');
    if (p >= 100) throw usage('percentage for --max-unused must be below 100%');
    return { kind: 'percent', percent: p };
  }
  try {
    return { kind: 'bytes', bytes: parseSize(s) };
  } catch (e) {
    throw usage(`invalid number of bytes ${JSON.stringify(raw)} for --max-unused: ${(e as Error).message}`);
  }
}

/** --repack-smaller-than: a size above zero. */
export function parseRepackSmallerThan(raw: string): number {
  let n: number;
  try {
    n = parseSize(raw);
  } catch (e) {
    throw usage(`invalid number of bytes ${JSON.stringify(raw)} for --repack-smaller-than: ${(e as Error).message}`);
  }
  if (n <= 0) throw usage('--repack-smaller-than must be larger than zero');
  return n;
}

/** The unused bytes tolerated after prune, given the used bytes (restic's maxUnusedBytes). */
export function maxUnusedBytes(m: MaxUnused, used: number): number {
  switch (m.kind) {
    case 'unlimited':
      return Infinity;
    case 'bytes':
      return m.bytes;
    case 'percent':
      return Math.floor((m.percent / (100 - m.percent)) * used);
  }
}
