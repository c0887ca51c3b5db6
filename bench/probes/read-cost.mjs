// What reading picked files costs in Chromium, by method: the files over 256 KiB of a folder
// (default D1) are read in one Web Worker with each method in turn, and the CPU time of the
// browser process and of the renderers is taken from /proc around each pass. Linux only.
// Warm the page cache first (e.g. `cat` the files), or the first pass also waits on the disk.
//
//   node bench/probes/read-cost.mjs [folder]
import { chromiumCpuSeconds, launchChromium, serve } from '../lib/chromium.mjs';
const W = `
const PIECE = 1 << 20;
const held = new Set(); async function byob(f, size) { const s = f.stream(); held.add(s); const r = s.getReader({ mode: 'byob' }); let b = new ArrayBuffer(size); let n = 0; let left = f.size;
  for (;;) { if (left <= 0) break; const x = await r.read(new Uint8Array(b, 0, Math.min(size, left))); if (x.done) break; n += x.value.length; left -= x.value.length; b = x.value.buffer; } held.delete(s); return n; }
async function slices(f, size) { let n = 0; for (let a = 0; a < f.size; a += size) n += (await f.slice(a, a + size).arrayBuffer()).byteLength; return n; }
function sync(f, size) { const rd = new FileReaderSync(); let n = 0; for (let a = 0; a < f.size; a += size) n += rd.readAsArrayBuffer(f.slice(a, a + size)).byteLength; return n; }
async function whole(f) { return (await f.arrayBuffer()).byteLength; }
let files;
self.onmessage = async (e) => {
  if (e.data.files) { files = e.data.files.filter((f) => f.size > 256 * 1024); self.postMessage({ n: files.length }); return; }
  const { method, size } = e.data; const t = performance.now(); let bytes = 0;
  for (const f of files) bytes += method === 'byob' ? await byob(f, size) : method === 'slices' ? await slices(f, size) : method === 'sync' ? sync(f, size) : await whole(f);
  self.postMessage({ ms: performance.now() - t, bytes });
};`;
const PAGE = `<!doctype html><input id=src type=file webkitdirectory multiple><script type="module">
const w = new Worker('/w.js'); let pending; w.onmessage = (e) => pending(e.data);
window.ask = (m) => new Promise((r) => { pending = r; w.postMessage(m); });
window.give = () => window.ask({ files: [...document.getElementById('src').files] });
</script>`;
const cpuText = (c) => `browser CPU ${c.browser.toFixed(2)} s; renderer CPU ${c.renderers.toFixed(2)} s`;
const server = await serve({ '/': PAGE, '/w.js': W });
const browser = await launchChromium(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
const page = await browser.newPage();
await page.goto(server.url + '/');
await page.setInputFiles('#src', process.argv[2] ?? 'bench/data/s1/d1-mixed', { timeout: 0 });
console.log(await page.evaluate(() => window.give()));
for (const [method, size] of [
  ['byob', 1 << 20],
  ['byob', 8 << 20],
  ['slices', 1 << 20],
  ['slices', 8 << 20],
  ['sync', 8 << 20],
  ['whole', 0],
  ['byob', 1 << 20],
]) {
  const c0 = chromiumCpuSeconds();
  const r = await page.evaluate((m) => window.ask(m), { method, size });
  console.log(method, size >> 20, 'MiB:', (r.ms / 1000).toFixed(2), 's', (r.bytes / 1e6).toFixed(0), 'MB;', cpuText(chromiumCpuSeconds(c0)));
}
await browser.close();
process.exit(0);
