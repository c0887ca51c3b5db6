// What writing 1.1 GB into OPFS costs in Chromium, through a sync access handle (what the
// repository backend uses in workers) and through createWritable(): wall time, and the CPU of
// the browser process and of the renderers from /proc. A persistent profile, as a user's: in
// an incognito one OPFS lives in memory and costs far more. Linux only.
//
//   node bench/probes/write-cost.mjs
import { chromiumCpuSeconds, workerPage } from '../lib/chromium.mjs';
const W = `
self.onmessage = async (e) => {
  const { method, total, piece } = e.data; const t = performance.now();
  const root = await navigator.storage.getDirectory();
  const buf = new Uint8Array(piece).map((_, i) => i * 13);
  let n = 0, k = 0;
  while (n < total) {
    const fh = await root.getFileHandle('f' + (k++), { create: true });
    if (method === 'sync') { const h = await fh.createSyncAccessHandle(); let at = 0; for (let i = 0; i < 16; i++) { at += h.write(buf, { at }); } h.flush(); h.close(); n += at; }
    else { const w = await fh.createWritable(); for (let i = 0; i < 16; i++) await w.write(buf); await w.close(); n += 16 * piece; }
  }
  for (let i = 0; i < k; i++) await root.removeEntry('f' + i);
  self.postMessage({ ms: performance.now() - t, bytes: n });
};`;
const cpuText = (c) => `browser CPU ${c.browser.toFixed(2)} s; renderer CPU ${c.renderers.toFixed(2)} s`;
const wp = await workerPage(W);
for (const method of ['sync', 'writable', 'sync']) {
  const c0 = chromiumCpuSeconds();
  const r = await wp.ask({ method, total: 1100e6, piece: 1 << 20 });
  console.log(method, (r.ms / 1000).toFixed(2), 's', (r.bytes / 1e6).toFixed(0), 'MB;', cpuText(chromiumCpuSeconds(c0)));
}
await wp.close();
process.exit(0);
