// Builds the browser column's page (bench/browser/index.html + page.ts) with Vite, the same
// bundler and worker handling as the app, into BENCH_DATA/browser-build. The engine worker and
// its file-saver workers are the app's own (workers/).
import fs from 'node:fs';
import path from 'node:path';
import { launchWithCdp, serve, staticRoutes } from '../lib/chromium.mjs';
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
    // The app's engine with its tuning knobs (workers/api.ts TuningApi), and the app's real KDF.
    define: { __CAIRN_TEST_HOOKS__: 'false', __CAIRN_KDF_FOR_TESTS__: 'null', __CAIRN_TUNING__: 'true' },
    worker: { format: 'es' },
    build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, minify, assetsInlineLimit: (f) => (f.endsWith('.wasm') ? false : undefined) },
    server: { fs: { allow: [ROOT] } },
  });
  return outDir;
}

/**
 * The bench page in a Chromium of its own, for the tools that watch it over CDP (timeline,
 * memory-dump, engine-profile, heap-snapshot): built (`minify: false` into its own folder, for
 * readable profiles), served, loaded, a new OPFS repository open, and `dataset`'s files picked
 * when given (`loc`: another location, an S3 one say). `cdp` is a browser-level session; close() ends Chromium and the server.
 */
export async function openBenchPage(name, { dataset, minify = true, onPage, loc } = {}) {
  const out = path.join(ROOT, 'bench/data', minify ? 'browser-build' : 'browser-build-profile');
  await buildBenchPage(out, { minify });
  const server = await serve(staticRoutes(out));
  const chrome = await launchWithCdp(`cairn-${name}-`);
  const { page } = chrome;
  onPage?.(page);
  await page.goto(server.url + '/');
  await page.waitForFunction(() => document.title === 'cairn bench ready', null, { timeout: 30000 });
  await page.evaluate(({ loc, pw }) => window.cairnBench.init(loc, pw), {
    loc: loc ?? { kind: 'opfs', name: `${name}-${Date.now()}` },
    pw: `${name} password`,
  });
  if (dataset) await page.setInputFiles('#src', dataset, { timeout: 0 });
  return {
    ...chrome,
    server,
    cdp: await chrome.browser.newBrowserCDPSession(),
    async close() {
      await chrome.close();
      await server.close();
    },
  };
}

/**
 * A location in the radosgw of CAIRN_S3_ENV (scripts/s3/start.sh, started with --origin '*'
 * for the bench page's random port), under a new prefix `<tag>-<time>`, with the keys given.
 */
export function s3LocationFromEnv(tag) {
  if (!process.env.CAIRN_S3_ENV) throw new Error('CAIRN_S3_ENV is not set: start a radosgw with scripts/s3/start.sh --origin "*" first');
  const s3 = JSON.parse(fs.readFileSync(process.env.CAIRN_S3_ENV, 'utf8'));
  return {
    kind: 's3',
    endpoint: s3.endpoint,
    region: s3.region,
    bucket: s3.bucket,
    prefix: `${tag}-${Date.now().toString(36)}`,
    pathStyle: true,
    auth: { type: 'keys', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  };
}
