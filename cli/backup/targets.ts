// What `cairn backup` backs up (restic 0.18 cmd_backup.go collectTargets): the arguments plus
// the lines of --files-from (trimmed, `#` comments skipped, each a glob as Go's filepath.Glob
// expands it), --files-from-verbatim (each non-empty line as is) and --files-from-raw
// (NUL-terminated names); `-` reads standard input. Targets that do not exist are skipped with
// a warning; none left is a fatal error, and no snapshot is made.

import fs from 'node:fs';
import path from 'node:path';
import { CairnError } from '../../core/errors';
import { matchComponent } from '../../core/filter';
import { readText, scanLines } from '../text-files';

export interface TargetSources {
  args: string[];
  filesFrom?: string[];
  filesFromVerbatim?: string[];
  filesFromRaw?: string[];
}

export interface Targets {
  /** The targets that exist, in the order given. */
  targets: string[];
  /** Some were skipped (restic 0.19: the backup then exits 3, as for unreadable files). */
  skipped: boolean;
}

/** Names each ended by a NUL byte (restic readFilenamesRaw). */
export function splitRaw(bytes: Uint8Array): string[] {
  const names: string[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0) continue;
    if (i === start) throw new CairnError('USAGE', '--files-from-raw: empty filename in listing');
    names.push(Buffer.from(bytes.subarray(start, i)).toString('utf8'));
    start = i + 1;
  }
  if (start < bytes.length) throw new CairnError('USAGE', '--files-from-raw: trailing zero byte missing');
  return names;
}

const META = /[*?[\\]/;

/** Go's filepath.Glob: `*`, `?`, `[…]` within components; sorted matches, I/O errors ignored. */
export function goGlob(pattern: string): string[] {
  if (!META.test(pattern)) return exists(pattern) ? [pattern] : [];
  const dir = path.dirname(pattern);
  const file = path.basename(pattern);
  const dirs = META.test(dir) && dir !== pattern ? goGlob(dir) : [dir];
  const out: string[] = [];
  for (const d of dirs) {
    let names: string[];
    try {
      if (!fs.statSync(d).isDirectory()) continue;
      names = fs.readdirSync(d).sort();
    } catch {
      continue;
    }
    for (const n of names) if (matchComponent(file, n)) out.push(path.join(d, n));
  }
  return out;
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

export type ReadInput = (file: string) => Uint8Array;

/** Reads a list file, or standard input for `-`. */
const readInput: ReadInput = (file) => new Uint8Array(fs.readFileSync(file === '-' ? 0 : file));

/** `warn` is told of each target left out, naming it as `item`. */
export function collectTargets(src: TargetSources, warn: (msg: string, item?: string) => void, read: ReadInput = readInput): Targets {
  const targets: string[] = [];
  for (const file of src.filesFrom ?? []) {
    for (let line of scanLines(readText(read(file)))) {
      line = line.trim();
      if (line === '' || line.startsWith('#')) continue;
      const expanded = goGlob(line);
      if (expanded.length === 0) warn(`pattern ${JSON.stringify(line)} does not match any files, skipping\n`);
      targets.push(...expanded);
    }
  }
  for (const file of src.filesFromVerbatim ?? []) targets.push(...scanLines(readText(read(file))).filter((l) => l !== ''));
  for (const file of src.filesFromRaw ?? []) targets.push(...splitRaw(read(file)));
  targets.push(...src.args);
  if (targets.length === 0) throw new CairnError('USAGE', 'nothing to backup, please specify source files/dirs');
  return filterExisting(targets, warn);
}

function filterExisting(items: string[], warn: (msg: string, item?: string) => void): Targets {
  const targets: string[] = [];
  for (const item of items) {
    try {
      fs.lstatSync(item);
      targets.push(item);
    } catch (e) {
      warn((e as NodeJS.ErrnoException).code === 'ENOENT' ? `${item} does not exist, skipping\n` : `${item} cannot be accessed, skipping\n`, item);
    }
  }
  if (targets.length === 0) throw new CairnError('SOURCE_READ', 'all source directories/files do not exist');
  return { targets, skipped: targets.length < items.length };
}
