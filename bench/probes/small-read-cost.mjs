// What reading many small picked files costs in Chromium, by method: the files of a folder
// (default D2, 50 000 small files) are read in one Web Worker in groups of 64, in a fresh page
// for each method, and the CPU time of the browser process and of the renderers, and the
// renderer's memory after a full collection, are taken from /proc. Linux only. Warm the page
// cache first (e.g. `cat` the files).
//   files    the page posts the Files (64 per message); the worker reads each group as one
//            Blob made of them (what the saver did)
//   groups   the page makes one Blob of each 64 Files and posts those; the worker reads them
//   each     the page posts the Files; the worker reads each File alone
//
//   node bench/probes/small-read-cost.mjs [folder] [method,…]
import fs from 'node:fs';
import { chromiumCpuSeconds, serve } from '../lib/chromium.mjs';
const W = `
self.onmessage = async (e) => {
  const m = e.data;
  if (m.gc) { gc(); self.postMessage({}); return; }
  let bytes = 0;
  if (m.how === 'each') for (const f of m.items) bytes += (await f.arrayBuffer()).byteLength;
  else if (m.how === 'files') bytes += (await new Blob(m.items).arrayBuffer()).byteLength;
  else for (const b of m.items) bytes += (await b.arrayBuffer()).byteLength;
  self.postMessage({ bytes });
};`;
const PAGE = `<!doctype html><input id=src type=file webkitdirectory multiple><script type="module">
const w = new Worker('/w.js'); let pending; w.onmessage = (e) => pending(e.data);
const ask = (m) => new Promise((r) => { pending = r; w.postMessage(m); });
window.meta = () => { let n = 0; for (const f of document.getElementById('src').files) n += f.size + f.lastModified; return n; };
window.gcAll = async () => { gc(); await ask({ gc: true }); };
window.run = async (how) => {
  const files = [...document.getElementById('src').files]; let bytes = 0;
  const t = performance.now();
  for (let i = 0; i < files.length; i += 64) {
    const g = files.slice(i, i + 64);
    bytes += (await ask({ how, items: how === 'groups' ? [new Blob(g)] : g })).bytes;
  }
  return { ms: Math.round(performance.now() - t), bytes };
};
</script>`;
const server = await serve({ '/': PAGE, '/w.js': W });
const rendererMiB = () => {
  let kb = 0;
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer') || cmd.includes('--top-chrome-webui')) continue;
      kb = Math.max(kb, Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]));
    } catch {}
  }
  return Math.round(kb / 1024);
};
for (const how of (process.argv[3] ?? 'files,groups,each,files,groups').split(',')) {
  const browser = await (
    await import('playwright-core')
  ).chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...(await import('../lib/chromium.mjs')).CHROMIUM_FLAGS, '--js-flags=--expose-gc'],
  });
  const page = await browser.newPage();
  await page.goto(server.url + '/');
  await page.setInputFiles('#src', process.argv[2] ?? 'bench/data/s1/d2-small', { timeout: 0 });
  await page.evaluate(() => window.meta());
  await page.evaluate(() => window.gcAll());
  const m0 = rendererMiB();
  const c0 = chromiumCpuSeconds();
  const r = await page.evaluate((h) => window.run(h), how);
  const c = chromiumCpuSeconds(c0);
  const m1 = rendererMiB();
  await page.evaluate(() => window.gcAll());
  await new Promise((res) => setTimeout(res, 1000));
  await page.evaluate(() => window.gcAll());
  console.log(
    how.padEnd(7),
    (r.ms / 1000).toFixed(2),
    's',
    (r.bytes / 1e6).toFixed(0),
    'MB;',
    `browser CPU ${c.browser.toFixed(2)} s; renderer CPU ${c.renderers.toFixed(2)} s; renderer PSS ${m0} → ${m1} MiB, ${rendererMiB()} after GC`,
  );
  await browser.close();
}
process.exit(0);
