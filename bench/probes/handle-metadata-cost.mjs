// What File System Access charges for the sizes and times of many files: N small files are
// made in one OPFS folder of a persistent profile (as a user's), then a worker lists the folder
// and calls getFile() on every handle, one at a time or with K in flight; wall time and the CPU
// of each kind of Chromium thread (from /proc) per pass. The File System Access twin of
// pick-metadata-cost.mjs (which measures the same for <input webkitdirectory>). Linux only.
//
//   node bench/probes/handle-metadata-cost.mjs [files=20000] [in-flight,…=1,16,64]
import fs from 'node:fs';
import { threadCpuDelta, threadCpuSeconds, workerPage } from '../lib/chromium.mjs';

const files = Number(process.argv[2] ?? 20000);
const flights = (process.argv[3] ?? '1,16,64').split(',').map(Number);
const W = `
self.onmessage = async (e) => {
  const m = e.data;
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle('many', { create: true });
  if (m.make) {
    const buf = new Uint8Array(100).fill(7);
    for (let i = 0; i < m.make; i++) {
      const h = await (await dir.getFileHandle('f' + i, { create: true })).createSyncAccessHandle();
      h.write(buf, { at: 0 }); h.close();
    }
    self.postMessage({}); return;
  }
  const t = performance.now();
  const handles = [];
  for await (const h of dir.values()) handles.push(h);
  const listed = performance.now() - t;
  let next = 0, s = 0;
  await Promise.all(Array.from({ length: m.inFlight }, async () => {
    while (next < handles.length) { const f = await handles[next++].getFile(); s += f.size + f.lastModified; }
  }));
  self.postMessage({ n: handles.length, listed, ms: performance.now() - t });
};`;
const wp = await workerPage(W);
const pids = () =>
  fs.readdirSync('/proc').filter((p) => {
    try {
      return /^\d+$/.test(p) && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(wp.profile);
    } catch {
      return false;
    }
  });
const t = Date.now();
await wp.ask({ make: files });
console.log(`made ${files} files in OPFS in ${((Date.now() - t) / 1000).toFixed(1)} s`);
for (const inFlight of flights) {
  const c0 = threadCpuSeconds(pids());
  const r = await wp.ask({ inFlight });
  const threads = threadCpuDelta(c0, threadCpuSeconds(pids()), 0.1);
  console.log(
    `getFile() × ${r.n}, ${inFlight} in flight: ${(r.ms / 1000).toFixed(2)} s (listing ${(r.listed / 1000).toFixed(2)} s), ${((r.ms * 1000) / r.n).toFixed(0)} µs a file`,
  );
  console.log('   ', threads.map((g) => `${g.group.replace(/^(\w+) \d+: /, '$1 ')} ${g.seconds}`).join('; '));
}
await wp.close();
process.exit(0);
