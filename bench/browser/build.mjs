// Builds the browser column's page (bench/browser/index.html + page.ts) with Vite, the same
// bundler and worker handling as the app, into BENCH_DATA/browser-build. The engine worker and
// its file-saver workers are the app's own (workers/).
import path from 'node:path';
import { ROOT } from '../lib/config.mjs';

/** `minify: false` keeps names readable (for profiles). */
export async function buildBenchPage(outDir, { minify = true } = {}) {
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: path.join(ROOT, 'bench/browser'),
    base: './',
    logLevel: 'warn',
    publicDir: false,
    define: { __CAIRN_TEST_HOOKS__: 'false' },
    worker: { format: 'es' },
    build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, minify, assetsInlineLimit: (f) => (f.endsWith('.wasm') ? false : undefined) },
    server: { fs: { allow: [ROOT] } },
  });
  return outDir;
}
