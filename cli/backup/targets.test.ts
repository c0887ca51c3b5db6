import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectTargets, goGlob, splitRaw } from './targets';
import { readText, scanLines } from '../text-files';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-targets-'));
  for (const f of ['a.txt', 'b.txt', 'c.log', 'sub/d.txt', 'sub/e.txt', 'other/f.txt']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), f);
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('backup targets', () => {
  it('globs as Go filepath.Glob: per component, sorted, nothing for no match, the name itself without wildcards', () => {
    expect(goGlob(path.join(dir, '*.txt'))).toEqual([path.join(dir, 'a.txt'), path.join(dir, 'b.txt')]);
    expect(goGlob(path.join(dir, '*', '?.txt'))).toEqual(['other/f.txt', 'sub/d.txt', 'sub/e.txt'].map((f) => path.join(dir, f)));
    expect(goGlob(path.join(dir, '[ab].*'))).toEqual([path.join(dir, 'a.txt'), path.join(dir, 'b.txt')]);
    expect(goGlob(path.join(dir, 'nope*'))).toEqual([]);
    expect(goGlob(path.join(dir, 'c.log'))).toEqual([path.join(dir, 'c.log')]);
    expect(goGlob(path.join(dir, 'missing'))).toEqual([]);
  });

  it('reads list files as restic does: BOM dropped, CRLF lines, NUL-separated raw names with their errors', () => {
    expect(scanLines(readText(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('a\r\nb\n\nc')])))).toEqual(['a', 'b', '', 'c']);
    expect(scanLines(readText(new Uint8Array([0xff, 0xfe, ...Buffer.from('x\ny\n', 'utf16le')])))).toEqual(['x', 'y']);
    expect(splitRaw(Buffer.from('a b\0c\nd\0'))).toEqual(['a b', 'c\nd']);
    expect(() => splitRaw(Buffer.from('a\0b'))).toThrow('--files-from-raw: trailing zero byte missing');
    expect(() => splitRaw(Buffer.from('a\0\0'))).toThrow('--files-from-raw: empty filename in listing');
  });

  it('collects --files-from (trimmed, comments, globs), --files-from-verbatim and --files-from-raw, then the arguments; skips what does not exist', () => {
    const lists: Record<string, string> = {
      from: `# comment\n  ${dir}/*.txt  \n\n${dir}/nothing*\n`,
      verbatim: ` ${dir}/c.log\n${dir}/c.log\n\n`,
      raw: `${dir}/sub/d.txt\0`,
    };
    const warnings: string[] = [];
    const t = collectTargets(
      { args: [path.join(dir, 'other'), path.join(dir, 'gone')], filesFrom: ['from'], filesFromVerbatim: ['verbatim'], filesFromRaw: ['raw'] },
      (m) => warnings.push(m),
      (f) => Buffer.from(lists[f]!),
    );
    expect(t.targets).toEqual([
      path.join(dir, 'a.txt'),
      path.join(dir, 'b.txt'),
      path.join(dir, 'c.log'),
      path.join(dir, 'sub/d.txt'),
      path.join(dir, 'other'),
    ]);
    expect(t.skipped).toBe(true);
    expect(warnings).toEqual([
      `pattern "${dir}/nothing*" does not match any files, skipping\n`,
      ` ${dir}/c.log does not exist, skipping\n`,
      `${path.join(dir, 'gone')} does not exist, skipping\n`,
    ]);
  });

  it('nothing given, or nothing that exists, is an error', () => {
    expect(() => collectTargets({ args: [] }, () => {})).toThrow('nothing to backup, please specify source files/dirs');
    expect(() => collectTargets({ args: [path.join(dir, 'gone')] }, () => {})).toThrow('all source directories/files do not exist');
  });
});
