// Runs the micro stages inside a Web Worker in headless Chromium: bundles browser-worker.ts with
// esbuild, serves it with zstd.wasm and the text corpus from 127.0.0.1, and collects results.
//   node bench/micro/browser.mjs [--runs 5] [--mib 64] [--text FILE] [--json]
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../lib/config.mjs';
import { launchChromium, serve } from '../lib/chromium.mjs';

const PAGE = `<!doctype html><meta charset="utf-8"><title>cairn micro</title>
<script type="module">
window.runMicro = (req) => new Promise((resolve, reject) => {
  const w = new Worker('/worker.js', { type: 'module' });
  const partial = [];
  w.onmessage = (e) => {
    const m = e.data;
    if (m.type === 'result') { partial.push(m.result); console.log('stage ' + JSON.stringify(m.result)); }
    else if (m.type === 'done') { w.terminate(); resolve(m); }
    else if (m.type === 'error') { w.terminate(); reject(new Error(m.message)); }
  };
  w.onerror = (e) => reject(new Error('worker error: ' + e.message));
  w.postMessage(req);
});
</script>`;

export async function runBrowserMicro({ chromium = '/usr/bin/chromium', runs = 5, mib = 64, textFile, only, onResult } = {}) {
  const bundle = await build({
    absWorkingDir: ROOT,
    entryPoints: [path.join(ROOT, 'bench/micro/browser-worker.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'warning',
  });
  const zstdWasm = path.join(ROOT, 'node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm');
  const text = textFile ? textFile : Buffer.from('{"id": 1, "name": "x"},\n'.repeat(1 << 16));
  const server = await serve({ '/': PAGE, '/worker.js': Buffer.from(bundle.outputFiles[0].contents), '/zstd.wasm': zstdWasm, '/text.bin': text });
  const browser = await launchChromium(chromium);
  try {
    const page = await browser.newPage();
    page.on('console', (m) => {
      const t = m.text();
      if (t.startsWith('stage ')) onResult?.(JSON.parse(t.slice(6)));
    });
    await page.goto(server.url + '/');
    const out = await page.evaluate((req) => window.runMicro(req), { runs, mib, only });
    return { runtime: `chromium ${browser.version()} worker`, userAgent: out.userAgent, cores: out.cores, runs, mib, results: out.results };
  } finally {
    await browser.close();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (n) => {
    const i = process.argv.indexOf(`--${n}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const json = process.argv.includes('--json');
  const r = await runBrowserMicro({
    runs: Number(arg('runs') ?? 5),
    mib: Number(arg('mib') ?? 64),
    textFile: arg('text') ? path.resolve(arg('text')) : undefined,
    only: arg('only')?.split(','),
    chromium: process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium',
    onResult: json ? undefined : (r) => console.log(`${r.stage.padEnd(56)} ${r.wall.toFixed(0).padStart(6)} MB/s wall${r.note ? `  (${r.note})` : ''}`),
  });
  if (json) console.log(JSON.stringify(r));
  else console.log(r.runtime);
  void fs;
}
