// No function in the engine's riskiest folders, the workers or the CLI is longer than 100 lines:
// a unit that long cannot be tested in parts (docs/architecture.md, conventions 8: 100 is the hard limit).
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
// @ts-expect-error the script is plain JavaScript, shared with `node scripts/function-lengths.mjs`
import { functionLengths } from '../../scripts/function-lengths.mjs';

const ROOT = join(import.meta.dirname, '../..');
const FOLDERS = ['core/archiver', 'core/restorer', 'core/repository', 'workers', 'cli'];
const LIMIT = 100;

interface Length {
  file: string;
  name: string;
  line: number;
  lines: number;
}
const measure = functionLengths as (file: string, text: string) => Length[];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.ts$/.test(name) && !/\.(test|spec|d)\.ts$/.test(name)) out.push(p);
  }
  return out;
}

describe('function lengths', () => {
  it(`no function in ${FOLDERS.join(', ')} is longer than ${LIMIT} lines`, () => {
    const files = FOLDERS.flatMap((f) => sources(join(ROOT, f)));
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .flatMap((f) => measure(relative(ROOT, f), readFileSync(f, 'utf8')))
      .filter((f) => f.lines > LIMIT)
      .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });

  it('measures a function from its first to its last line', () => {
    const body = Array.from({ length: 101 }, (_, i) => `  x += ${i};`).join('\n');
    const [f] = measure('x.ts', `function long() {\n  let x = 0;\n${body}\n}\n`);
    expect(f).toMatchObject({ name: 'long', line: 1, lines: 104 });
  });
});
