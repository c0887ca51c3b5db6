import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeEntry } from '../adapters/node-source';
import { CACHEDIR_TAG, combine, parseBytes, rejectByPatterns, rejectBySize, rejectIfPresent } from './rejects';
import { goExpand } from '../text-files';
import type { SourceEntry } from '../../core/archiver/source';

let dir: string;
const entry = (p: string) => nodeEntry(path.join(dir, p));
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-rejects-'));
  const files: Record<string, string> = {
    'cache/CACHEDIR.TAG': 'Signature: 8a477f597d28d172789f06886806bc55\n# a cache',
    'cache/blob': 'x',
    'fake/CACHEDIR.TAG': 'Signature: 00000000000000000000000000000000 (not the one)',
    'fake/blob': 'x',
    'short/CACHEDIR.TAG': 'Signature',
    'empty/CACHEDIR.TAG': '',
    'plain/.nobackup': '',
    'plain/f': 'y'.repeat(2048),
  };
  for (const [f, d] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), d);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('backup rejects', () => {
  it('--exclude-caches: a directory with a correctly signed CACHEDIR.TAG keeps only the tag; a wrong or short signature is warned about', async () => {
    const warnings: string[] = [];
    const reject = rejectIfPresent(CACHEDIR_TAG, (m) => warnings.push(m));
    const at = async (p: string) => reject(path.join(dir, p), await entry(p));
    expect(await at('cache/blob')).toBe(true);
    expect(await at('cache/CACHEDIR.TAG')).toBe(false);
    expect(await at('cache')).toBe(false); // the directory itself stays
    expect(await at('fake/blob')).toBe(false);
    expect(await at('fake/blob')).toBe(false); // one warning per directory
    expect(await at('short/CACHEDIR.TAG')).toBe(false);
    expect(await at('plain/f')).toBe(false);
    expect(await at('empty/CACHEDIR.TAG')).toBe(false);
    expect(reject(path.join(dir, 'empty', 'x'), {} as SourceEntry)).toBe(false);
    expect(warnings).toEqual([
      `invalid signature in exclusion tagfile "${dir}/fake/CACHEDIR.TAG"\n`,
      `invalid (too short) signature in exclusion tagfile "${dir}/empty/CACHEDIR.TAG"\n`,
    ]);
    const short = rejectIfPresent(CACHEDIR_TAG, (m) => warnings.push(m));
    expect(short(path.join(dir, 'short', 'x'), {} as SourceEntry)).toBe(false);
    expect(warnings.at(-1)).toBe(`could not read signature from exclusion tagfile "${dir}/short/CACHEDIR.TAG": unexpected EOF\n`);
  });

  it('--exclude-if-present without a header: the mere presence excludes; a bad spec is refused', async () => {
    const reject = rejectIfPresent('.nobackup', () => {});
    expect(reject(path.join(dir, 'plain/f'), await entry('plain/f'))).toBe(true);
    expect(reject(path.join(dir, 'plain/.nobackup'), await entry('plain/.nobackup'))).toBe(false);
    expect(() => rejectIfPresent('', () => {})).toThrow('name for exclusion tagfile is empty');
    expect(() => rejectIfPresent(':x', () => {})).toThrow('no name for exclusion tagfile provided');
  });

  it('--exclude-larger-than: sizes as restic parses them; directories never', async () => {
    expect([parseBytes('1024'), parseBytes('1k'), parseBytes('2M'), parseBytes('1g'), parseBytes('3T'), parseBytes('5b')]).toEqual([
      1024,
      1024,
      2 << 20,
      1 << 30,
      3 * 2 ** 40,
      5,
    ]);
    expect(() => parseBytes('')).toThrow('expected size');
    expect(() => parseBytes('1.5M')).toThrow('invalid syntax');
    const reject = rejectBySize(1024);
    expect(reject('', await entry('plain/f'))).toBe(true);
    expect(reject('', await entry('plain'))).toBe(false);
    expect(reject('', await entry('cache/blob'))).toBe(false);
  });

  it('patterns from files expand the environment as Go os.Expand; -i patterns ignore case; rejects combine', () => {
    expect(goExpand('$HOME/x ${USER}y $$z $ $1 $/', { HOME: '/h', USER: 'u', '1': 'one' })).toBe('/h/x uy $z $ one $/');
    const reject = combine([rejectByPatterns(['*.LOG'], true), rejectByPatterns(['/tmp/keep/*.txt'], false), undefined])!;
    expect(reject('/a/b.log', {} as SourceEntry)).toBe(true);
    expect(reject('/tmp/keep/a.txt', {} as SourceEntry)).toBe(true);
    expect(reject('/tmp/keep/a.TXT', {} as SourceEntry)).toBe(false);
    expect(combine([undefined])).toBeUndefined();
  });
});
