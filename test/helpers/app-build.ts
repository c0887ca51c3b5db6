// The app's production build (dist/app) that the Firefox and WebKit tests load. It is built
// again whenever any of its sources is newer, so those tests never run a stale app; after
// scripts/test.sh's own build step (the same `vite build`) it is fresh and nothing is rebuilt.

import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli';

/** What `vite build` reads for dist/app (test files included: a rebuild too many is cheap, one too few is not). */
const SOURCES = ['web', 'workers', 'core', 'sw', 'public', 'index.html', 'vite.config.ts', 'package-lock.json', 'tsconfig.json'];
const BUILT = join(ROOT, 'dist/app/index.html');

function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs; // a deleted file leaves only its folder newer
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

const builtAt = () => statSync(BUILT, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/** Builds dist/app unless it is newer than every source; throws if the build leaves it stale. */
export function ensureAppBuild(): void {
  const sources = Math.max(...SOURCES.map((s) => newest(join(ROOT, s))));
  if (builtAt() > sources) return;
  // Without CAIRN_TEST_HOOKS: that variable builds the e2e variant into dist/app-e2e instead.
  const { CAIRN_TEST_HOOKS: _hooks, ...env } = process.env;
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: ROOT, env, stdio: 'inherit' });
  if (builtAt() <= sources) throw new Error(`vite build did not refresh ${BUILT}`);
}
