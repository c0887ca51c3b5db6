// What reading the sizes and times of many picked Files costs in Chromium, by where and how:
// the folder (default the 200 000-file home tree) is picked once through `webkitdirectory`,
// then every File's `size` and `lastModified` are read by the page alone, or by 1, 2 or 4
// dedicated workers the Files were posted to in groups; wall time and each kind of thread's
// CPU (from /proc) per pass. Linux only. Answers whether the metadata of a large pick is
// bound by the page's thread, the browser process or the IPC between them.
//
//   node bench/probes/pick-metadata-cost.mjs [folder] [pass,…]
//   passes, each after a fresh pick (a File keeps its size and time once read):
//     page-size, page-time, page-both  the page reads one field or both of every File
//     page-sorted, page-shuffled       both fields, in path order or in a scattered order
//     workers-N    the Files posted to N workers, which read both fields
//     post-N       the Files posted to N workers, nothing read: the hand-over alone
//     metapost-N   the page reads both fields, then posts the Files to N workers
import { serve, launchChromium, threadCpuSeconds, threadCpuDelta } from '../lib/chromium.mjs';
import fs from 'node:fs';

const W = `
let files = [];
self.onmessage = (e) => {
  const m = e.data;
  if (m.files) { files = files.concat(m.files); self.postMessage({ n: files.length }); return; }
  if (m.clear) { files = []; self.postMessage({}); return; }
  const t = performance.now(); let s = 0;
  for (const f of files) s += f.size + f.lastModified;
  self.postMessage({ ms: performance.now() - t, s });
};`;
const PAGE = `<!doctype html><input id=src type=file webkitdirectory multiple><script type="module">
const workers = [];
const ask = (w, m) => new Promise((r) => { w.onmessage = (e) => r(e.data); w.postMessage(m); });
window.count = () => document.getElementById('src').files.length;
window.page = (what) => {
  const files = document.getElementById('src').files; const t = performance.now(); let s = 0;
  const order = [...Array(files.length).keys()];
  if (what === 'shuffled') for (let i = order.length - 1; i > 0; i--) { const j = (i * 7919) % (i + 1); [order[i], order[j]] = [order[j], order[i]]; }
  if (what === 'sorted') { const p = [...files].map((f) => f.webkitRelativePath); order.sort((a, b) => (p[a] < p[b] ? -1 : 1)); }
  for (let k = 0; k < files.length; k++) { const f = files[order[k]]; s += what === 'size' ? f.size : what === 'time' ? f.lastModified : f.size + f.lastModified; }
  return { ms: performance.now() - t };
};
window.workers = async (n, read) => {
  while (workers.length < n) { const w = new Worker('/w.js'); await ask(w, { clear: true }); workers.push(w); }
  const files = [...document.getElementById('src').files];
  const t = performance.now();
  const per = Math.ceil(files.length / n);
  await Promise.all(workers.slice(0, n).map(async (w, k) => {
    for (let i = k * per; i < Math.min(files.length, (k + 1) * per); i += 2000) await ask(w, { files: files.slice(i, Math.min(i + 2000, (k + 1) * per)) });
  }));
  const posted = performance.now() - t;
  if (read) await Promise.all(workers.slice(0, n).map((w) => ask(w, { read: true })));
  const ms = performance.now() - t;
  await Promise.all(workers.map((w) => ask(w, { clear: true })));
  return { ms, posted };
};
</script>`;
const folder = process.argv[2] ?? 'bench/data/scale/home-200000';
const passes = (process.argv[3] ?? 'page-both,page-size,page-time,post-1,workers-1,workers-2,workers-4,page-both').split(',');
const server = await serve({ '/': PAGE, '/w.js': W });
const browser = await launchChromium(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
const page = await browser.newPage();
await page.goto(server.url + '/');
const pids = () =>
  fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('chromium');
      } catch {
        return false;
      }
    });
const show = (c) =>
  console.log(
    '   ',
    threadCpuDelta(c, threadCpuSeconds(pids()), 0.1)
      .map((g) => `${g.group.replace(/^(\w+) \d+: /, '$1 ')} ${g.seconds}`)
      .join('; '),
  );
// A File keeps its size and time once read (and a clone carries them): each pass picks anew.
for (const p of passes) {
  const t0 = Date.now();
  let c0 = threadCpuSeconds(pids());
  await page.goto(server.url + '/');
  await page.setInputFiles('#src', folder, { timeout: 0 });
  console.log('pick', await page.evaluate(() => window.count()), 'files', ((Date.now() - t0) / 1000).toFixed(1), 's');
  show(c0);
  c0 = threadCpuSeconds(pids());
  const [kind, arg] = p.split('-');
  if (kind === 'metapost') {
    const m = await page.evaluate(() => window.page('both'));
    console.log('  (sizes and times first:', (m.ms / 1000).toFixed(2), 's)');
  }
  const r =
    kind === 'page'
      ? await page.evaluate((w) => window.page(w), arg)
      : await page.evaluate(([n, read]) => window.workers(n, read), [Number(arg), kind === 'workers']);
  console.log(p.padEnd(10), (r.ms / 1000).toFixed(2), 's', r.posted ? `(posted in ${(r.posted / 1000).toFixed(2)} s)` : '');
  show(c0);
}
await browser.close();
process.exit(0);
