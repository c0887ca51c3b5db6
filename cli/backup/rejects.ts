// What `cairn backup` leaves out (restic 0.18 cmd_backup.go collectRejectByNameFuncs and
// collectRejectFuncs, internal/archiver/exclude.go): exclude patterns (--exclude, --iexclude
// and their -file forms), --one-file-system, --exclude-larger-than, --exclude-if-present and
// --exclude-caches. Each is a function of the path and its lstat'ed entry; an entry any of
// them rejects is left out with everything below it.

import fs from 'node:fs';
import path from 'node:path';
import { CairnError } from '../../core/errors';
import { matchAny, parsePattern } from '../../core/filter';
import type { SourceEntry } from '../../core/archiver/source';

export type Reject = (path: string, entry: SourceEntry) => boolean;

/** The cache directory tag's signature (https://bford.info/cachedir/). */
export const CACHEDIR_TAG = 'CACHEDIR.TAG:Signature: 8a477f597d28d172789f06886806bc55';

/** Rejects paths matching the patterns (case-insensitively: both lower-cased). */
export function rejectByPatterns(patterns: string[], insensitive: boolean): Reject | undefined {
  if (patterns.length === 0) return undefined;
  const parsed = patterns.map((p) => parsePattern(insensitive ? p.toLowerCase() : p));
  return (p) => matchAny(parsed, (insensitive ? p.toLowerCase() : p).split('/').filter(Boolean));
}

/** restic ui.ParseBytes: an integer with an optional b/k/m/g/t suffix (powers of 1024). */
export function parseBytes(s: string): number {
  if (s === '') throw new CairnError('USAGE', 'expected size, got empty string');
  const units: Record<string, number> = { b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };
  const unit = units[s[s.length - 1]!.toLowerCase()];
  const num = unit === undefined ? s : s.slice(0, -1);
  if (!/^[+-]?\d+$/.test(num)) throw new CairnError('USAGE', `strconv.ParseInt: parsing ${JSON.stringify(num)}: invalid syntax`);
  const value = Number(num) * (unit ?? 1);
  if (!Number.isSafeInteger(value) || value < 0) throw new CairnError('USAGE', `ParseSize: ${JSON.stringify(num)}: value out of range`);
  return value;
}

/** Files (anything but a directory) larger than `max` bytes. */
export function rejectBySize(max: number): Reject {
  return (_p, e) => e.node.type !== 'dir' && e.size > max;
}

/**
 * --one-file-system: entries on another device than the target they lie under; a directory
 * that is a mount point itself is kept (empty), as restic keeps mount points.
 */
export function rejectByDevice(targets: string[]): Reject {
  const devices = new Map<string, bigint>();
  for (const t of targets) devices.set(path.resolve(t), fs.lstatSync(path.resolve(t), { bigint: true }).dev);
  const allowed = (item: string, dev: bigint): boolean => {
    for (let dir = item; ; dir = path.dirname(dir)) {
      const d = devices.get(dir);
      if (d !== undefined) return d === dev;
      if (dir === path.dirname(dir)) return false;
    }
  };
  return (p, e) => {
    const dev = e.node.deviceId ?? 0n;
    if (allowed(p, dev)) return false;
    if (e.node.type !== 'dir') return true;
    try {
      const parent = path.dirname(p);
      return !allowed(parent, fs.lstatSync(parent, { bigint: true }).dev);
    } catch {
      return true; // if in doubt, reject
    }
  };
}

/**
 * --exclude-if-present FILE[:HEADER]: the entries of a directory holding FILE (whose first
 * bytes are HEADER, if given) are left out, except FILE itself; the directory stays. A tag
 * file that cannot be read or has the wrong header is warned about and excludes nothing.
 */
export function rejectIfPresent(spec: string, warn: (msg: string) => void): Reject {
  if (spec === '') throw new CairnError('USAGE', 'name for exclusion tagfile is empty');
  const colon = spec.indexOf(':');
  if (colon === 0) throw new CairnError('USAGE', 'no name for exclusion tagfile provided');
  const name = colon > 0 ? spec.slice(0, colon) : spec;
  const header = colon > 0 ? spec.slice(colon + 1) : '';
  const seen = new Map<string, boolean>();
  return (p) => {
    if (path.basename(p) === name) return false;
    const dir = path.dirname(p);
    let rejected = seen.get(dir);
    if (rejected === undefined) seen.set(dir, (rejected = tagged(path.join(dir, name), header, warn)));
    return rejected;
  };
}

function tagged(file: string, header: string, warn: (msg: string) => void): boolean {
  try {
    fs.lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warn(`could not access exclusion tagfile: ${(e as Error).message}`);
    return false;
  }
  if (header === '') return true;
  const want = Buffer.from(header, 'utf8');
  const got = Buffer.alloc(want.length);
  let n = 0;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      for (let r = 1; n < want.length && r > 0; n += r) r = fs.readSync(fd, got, n, want.length - n, null);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    warn(`could not read signature from exclusion tagfile ${JSON.stringify(file)}: ${(e as Error).message}\n`);
    return false;
  }
  if (n === 0) {
    warn(`invalid (too short) signature in exclusion tagfile ${JSON.stringify(file)}\n`);
    return false;
  }
  if (n < want.length) {
    warn(`could not read signature from exclusion tagfile ${JSON.stringify(file)}: unexpected EOF\n`);
    return false;
  }
  if (!got.equals(want)) {
    warn(`invalid signature in exclusion tagfile ${JSON.stringify(file)}\n`);
    return false;
  }
  return true;
}

/** One function rejecting what any of `rejects` rejects (undefined when there are none). */
export function combine(rejects: (Reject | undefined)[]): Reject | undefined {
  const list = rejects.filter((r): r is Reject => r !== undefined);
  if (list.length === 0) return undefined;
  return (p, e) => list.some((r) => r(p, e));
}
