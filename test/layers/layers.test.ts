import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkLayers, importCircles, importsOf } from './layers';
import { deadExports } from './exports';

const ROOT = join(import.meta.dirname, '../..');
const LAYERS = ['core', 'workers', 'web', 'cli', 'sw'];

/** Every source file of `folders` (the layers by default), path from the root → text. */
function sources(folders: readonly string[] = LAYERS): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (name === 'node_modules' || name === 'generated' || (name === 'as' && dir.endsWith('wasm'))) continue;
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|svelte|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.set(relative(ROOT, p), readFileSync(p, 'utf8'));
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  return out;
}

describe('layer rules', () => {
  it('hold in this repository', () => {
    const all = sources();
    expect(all.size).toBeGreaterThan(300);
    expect(checkLayers(all).map((v) => `${v.file}:${v.line} ${v.specifier} — ${v.rule}`)).toEqual([]);
  });

  it.each([
    ['core/x/a.ts', "import { y } from '../../workers/api';", 'core/ imports nothing outside core/'],
    ['core/x/a.ts', "import fs from 'node:fs';", 'core/ uses no package'],
    ['core/x/a.ts', "const m = await import('idb');", 'core/ uses no package'],
    ['workers/engine/a.ts', "import { m } from '../../web/lib/messages';", 'workers/ imports core/ and itself only'],
    ['cli/commands/a.ts', "import { fsaTarget } from '../../workers/restore/fsa-target';", 'cli/ imports core/ and itself only'],
    ['web/state/a.svelte.ts', "import { servedFileList } from '../../workers/source/file-server';", 'web/ reaches workers/ only through'],
    ['web/components/A.svelte', '<script lang="ts">\n  import { engine } from \'../lib/engine\';\n</script>', 'components do not call the engine'],
    ['web/components/A.svelte', '<script lang="ts">\n  import { formatBytes } from \'../../core/progress\';\n</script>', 'components import only types'],
    ['sw/a.ts', "import { x } from '../core/id';", 'sw/ stands alone'],
    ['workers/engine/a.ts', "import { seededBytes } from '../../test/helpers/fault-backend';", 'product code imports nothing from test/'],
    ['cli/a.ts', "import { fake } from './testing/fake';", 'product code imports nothing from test/ or a testing module'],
    ['core/backend/suite.ts', "import { describe } from 'vitest';", 'only tests import vitest'],
  ])('catch a deliberate break: %s importing %j', (file, source, rule) => {
    const v = checkLayers(new Map([[file, source]]));
    expect(v).toHaveLength(1);
    expect(v[0]!.rule).toContain(rule);
  });

  it.each([
    ['core/x/a.test.ts', "import { memRepo } from '../../test/helpers/mem-repo';\nimport fs from 'node:fs';"],
    ['core/x/a.ts', "import { hashWasm } from 'hash-wasm';\nimport { b } from '../y/b';"],
    [
      'web/components/A.svelte',
      "<script lang=\"ts\">\n  import type { SnapshotView } from '../../workers/api';\n  import { snapshots } from '../state/snapshots.svelte';\n</script>",
    ],
    ['web/lib/engine.ts', "import type { EngineApi } from '../../workers/api';\nimport { startEngine } from '../../workers/client/engine';"],
    ['workers/engine/a.ts', "import { CairnError } from '../../core/errors';"],
  ])('allow what the rules allow: %s', (file, source) => {
    expect(checkLayers(new Map([[file, source]]))).toEqual([]);
  });

  it('find no import circle in cli/, core/ or workers/ (type-only imports count)', () => {
    expect(importCircles(sources(), ['cli', 'core', 'workers'])).toEqual([]);
  });

  it('catch a deliberate circle, type-only imports included, and leave tests out', () => {
    const files = new Map([
      ['core/x/a.ts', "import { b } from './b';"],
      ['core/x/b.ts', "import type { C } from '../y';"],
      ['core/y/index.ts', "export { a } from '../x/a';"],
      ['core/x/c.ts', "import { a } from './a';"],
      ['core/x/a.test.ts', "import { c } from './c';"],
    ]);
    expect(importCircles(files, ['core'])).toEqual([['core/x/a.ts', 'core/x/b.ts', 'core/y/index.ts']]);
    expect(importCircles(files, ['cli'])).toEqual([]);
  });

  it('leave no value export that nothing imports', () => {
    const all = sources([...LAYERS, 'test', 'bench', 'scripts']);
    for (const config of ['vite.config.ts', 'playwright.config.ts']) all.set(config, readFileSync(join(ROOT, config), 'utf8'));
    // sourceFor's `export` goes with the rewrite of workers/engine/backup.ts (issue 46 item 1).
    const pending = new Set(['workers/engine/backup.ts sourceFor']);
    expect(
      deadExports(all)
        .map((d) => `${d.file} ${d.name}`)
        .filter((d) => !pending.has(d)),
    ).toEqual([]);
  });

  it('catch a deliberate dead export, and count every kind of use', () => {
    const files = new Map([
      ['core/x/a.ts', 'export function used() {}\nexport function viaIndex() {}\nexport const dead = 1;\nexport type T = number;'],
      ['core/x/b.ts', 'export function all() {}\nexport class Dyn {}'],
      ['core/x/index.ts', "export { viaIndex } from './a';"],
      ['workers/c.ts', "import { used } from '../core/x/a';\nimport * as b from '../core/x/b';\nconst d = await import('../core/x/b');"],
      ['web/d.ts', 'export const alsoDead = () => 0;'],
    ]);
    expect(deadExports(files).map((d) => `${d.file}:${d.line} ${d.name}`)).toEqual(['core/x/a.ts:3 dead', 'web/d.ts:1 alsoDead']);
  });

  it('reads every kind of import, with its line', () => {
    const refs = importsOf(
      "import a from './a';\nimport type { B } from './b';\nexport { c } from './c';\nimport './d.css';\nconst e = () => import('./e');\nexport type { F } from './f';",
    );
    expect(refs.map((r) => [r.specifier, r.typeOnly, r.line])).toEqual([
      ['./a', false, 1],
      ['./b', true, 2],
      ['./c', false, 3],
      ['./d.css', false, 4],
      ['./f', true, 6],
      ['./e', false, 5],
    ]);
  });
});
