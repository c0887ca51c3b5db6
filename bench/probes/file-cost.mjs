// What creating many small files in OPFS costs in Chromium, step by step: the handle alone
// (getFileHandle with create), then writing through a sync access handle, then through
// createWritable() — wall time, and the CPU of the browser process and of the renderers, per
// file. A persistent profile, as a user's. Linux only. Restoring D1's 5200 files spent more
// CPU in the browser process than in the worker that decrypts them.
//
//   node bench/probes/file-cost.mjs [files] [bytes per file] [in flight]
import { chromiumCpuSeconds, workerPage } from '../lib/chromium.mjs';

const [files = 5000, size = 4096, inFlight = 32] = process.argv.slice(2).map(Number);
const W = `
self.onmessage = async (e) => {
  const { method, files, size, inFlight, round } = e.data;
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle('r' + round, { create: true });
  const buf = new Uint8Array(size).map((_, i) => i * 13);
  const one = async (i) => {
    const fh = await dir.getFileHandle('f' + i, { create: true });
    if (method === 'sync') { const h = await fh.createSyncAccessHandle(); h.write(buf, { at: 0 }); h.close(); }
    else if (method === 'writable') { const w = await fh.createWritable(); await w.write(buf); await w.close(); }
  };
  const t = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => { while (next < files) await one(next++); }));
  const ms = performance.now() - t;
  await root.removeEntry('r' + round, { recursive: true });
  self.postMessage({ ms });
};`;
const wp = await workerPage(W);
let round = 0;
for (const method of ['handle', 'sync', 'writable', 'handle', 'sync']) {
  const c0 = chromiumCpuSeconds();
  const r = await wp.ask({ method, files, size, inFlight, round: round++ });
  const c = chromiumCpuSeconds(c0);
  const per = (s) => ((s * 1000) / files).toFixed(3);
  console.log(
    `${method.padEnd(8)} ${files} files of ${size} B, ${inFlight} in flight: ${(r.ms / 1000).toFixed(2)} s; per file: browser ${per(c.browser)} ms CPU, renderers ${per(c.renderers)} ms CPU`,
  );
}
await wp.close();
process.exit(0);
