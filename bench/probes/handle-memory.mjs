// Does creating many OPFS files leave memory behind in the worker that made them? Creates N
// files through sync access handles in a dedicated worker, in rounds, and prints the page
// renderer's and the browser process's memory (PSS, from /proc) after each round; then the
// worker allocates large ArrayBuffers it never touches, which V8 counts as external memory:
// past its limit that brings about a full collection. Linux only.
//
//   node bench/probes/handle-memory.mjs [files per round] [rounds]
//   NUDGES=n NUDGE_MIB=m: n buffers of m MiB at once (default: 8 of 64 MiB, 20 ms apart)
//
// Seen here (Chromium 156): ~12 KiB in the renderer and ~6 KiB in the browser per file, all
// of it garbage the collector frees (20 000 files: 279 -> 78 MiB), but only once a full
// collection runs, which making files alone does not bring about. Still reachable handles (a
// restore that kept its finished writers) are not freed at all.
import fs from 'node:fs';
import { workerPage } from '../lib/chromium.mjs';

const [perRound = 10000, rounds = 4] = process.argv.slice(2).map(Number);
const W = `
let round = 0;
self.onmessage = async (e) => {
  const root = await navigator.storage.getDirectory();
  if (e.data.churn) {
    // External memory the collector is told of (untouched pages cost nothing): past V8's
    // limit it runs a full collection, which also collects Blink's objects (file handles).
    for (let r = 0; r < (e.data.churn === true ? 8 : e.data.churn); r++) { new ArrayBuffer((Number(e.data.mib) || 64) << 20); if (e.data.churn === true) await new Promise((ok) => setTimeout(ok, 20)); }
    self.postMessage({});
    return;
  }
  const dir = await root.getDirectoryHandle('r' + round++, { create: true });
  const buf = new Uint8Array(2000).fill(7);
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < e.data.files) {
      const fh = await dir.getFileHandle('f' + next++, { create: true });
      const h = await fh.createSyncAccessHandle(); h.write(buf, { at: 0 }); h.close();
    }
  }));
  self.postMessage({ done: true });
};`;
const wp = await workerPage(W);
const profile = wp.profile;
const pss = () => {
  let best = 0;
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes(profile) || !cmd.includes('--type=renderer') || cmd.includes('--top-chrome-webui')) continue;
      best = Math.max(best, Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]) / 1024);
    } catch {}
  }
  return Math.round(best);
};
const browserPss = () => {
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (cmd.includes(profile) && !cmd.includes('--type='))
        return Math.round(Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]) / 1024);
    } catch {}
  }
};
console.log(`start: page renderer ${pss()} MiB, browser ${browserPss()} MiB`);
for (let r = 1; r <= rounds; r++) {
  const t = Date.now();
  await wp.ask({ files: perRound });
  console.log(`${r * perRound} files (${Date.now() - t} ms): page renderer ${pss()} MiB, browser ${browserPss()} MiB`);
}
const once = Number(process.env.NUDGES ?? 0);
await wp.ask({ churn: once || true, mib: Number(process.env.NUDGE_MIB ?? 64) });
await new Promise((r) => setTimeout(r, 2000));
console.log(`after the worker's garbage collector ran: page renderer ${pss()} MiB, browser ${browserPss()} MiB`);
await wp.close();
process.exit(0);
