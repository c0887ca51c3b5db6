// What ships carries no test knob: the CLI bundle (dist/cli, what bin/cairn runs) reads no
// CAIRN_TEST_* variable, and the app's production build has neither the engine's tuning method
// (workers/api.ts TuningApi) nor the e2e folder-picker hook. Both are built here from the
// current sources, into a temporary folder, exactly as `npm run build:cli` / `vite build` do.

import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAIRN_BIN, ROOT, removeDir, tempDir } from './helpers/cli';

/** Each .mjs/.js file under `dir` whose text matches `pattern`, with the first match. */
async function matches(dir: string, pattern: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || !/\.(m?js|html)$/.test(e.name)) continue;
    const m = pattern.exec(await readFile(join(e.parentPath, e.name), 'utf8'));
    if (m) out.push(`${join(e.parentPath, e.name)}: ${m[0]}`);
  }
  return out;
}

/** The build's environment without the variables that select the e2e variant. */
function shippedEnv(): NodeJS.ProcessEnv {
  const { CAIRN_TEST_HOOKS: _hooks, ...env } = process.env;
  return env;
}

let dir: string;
beforeAll(async () => {
  dir = await tempDir('cairn-shipped');
});
afterAll(async () => {
  await removeDir(dir);
});

describe('the shipped CLI bundle', () => {
  it('reads no CAIRN_TEST_* variable; the test bundle does', async () => {
    const out = join(dir, 'cli');
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs'), '--quiet', '--variant', 'shipped', '--outdir', out], { env: shippedEnv() });
    expect(await readdir(out)).toContain('cairn.mjs');
    expect(await matches(out, /CAIRN_TEST\w*/)).toEqual([]);
    // The same search finds the knob where it belongs, so it would find it in the shipped bundle too.
    expect(await matches(join(CAIRN_BIN, '..'), /CAIRN_TEST\w*/)).toEqual([`${CAIRN_BIN}: CAIRN_TEST_KDF`]);
  });
});

describe("the app's production build", () => {
  it('has no tuning method and no test hook', { timeout: 180_000 }, async () => {
    const out = join(dir, 'app');
    execFileSync('npx', ['vite', 'build', '--logLevel', 'error', '--outDir', out, '--emptyOutDir'], {
      cwd: ROOT,
      env: shippedEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    expect(await readdir(join(out, 'assets'))).toContainEqual(expect.stringMatching(/^engine-main-.*\.js$/));
    // Minified, the knob is `{tune:async e=>…}` (it is in the harness build: dist/harness/assets/engine-main-*.js).
    expect(await matches(out, /\btune\s*:|setSaverWorkers|__cairnTestPickDirectory|CAIRN_TEST\w*/)).toEqual([]);
  });
});
