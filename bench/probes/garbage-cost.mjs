// How much memory WebCrypto's garbage takes, and what core/memory/garbage.ts's nudges do to it: a
// worker encrypts 1.5 GB with AES-CTR in 128 KiB pieces (as the savers do), once for each
// setting, and the renderer's PSS is sampled every 50 ms. A setting is the MiB of output
// between nudges (0: none). Linux only.
//
//   node bench/probes/garbage-cost.mjs [settings, e.g. 0,8,0,8]
import fs from 'node:fs';
import { workerPage } from '../lib/chromium.mjs';
const W = `
self.onmessage = async (e) => {
  const key = await crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'AES-CTR' }, false, ['encrypt']);
  const data = new Uint8Array(1536 << 10).fill(3);
  const dst = new Uint8Array(1536 << 10);
  let made = 0, nudges = 0;
  const t = performance.now();
  for (let i = 0; i < e.data.mib / 1.5; i++) {
    for (let at = 0; at < data.length; at += 131072) {
      const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 128 }, key, data.subarray(at, at + 131072)));
      dst.set(ct, at);
    }
    made += data.length;
    if (e.data.nudge && made >= e.data.nudge << 20) { made = 0; nudges++; self.x = new ArrayBuffer(64 << 20); self.x = undefined; }
  }
  self.postMessage({ ms: performance.now() - t, nudges });
};`;
const wp = await workerPage(W);
const pids = () =>
  fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((p) => {
      try {
        const c = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return c.includes('--type=renderer') && c.includes(wp.profile);
      } catch {
        return false;
      }
    });
const pss = () => Math.max(...pids().map((p) => Math.round(Number(/Pss:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]) / 1024)));
for (const nudge of (process.argv[2] ?? '0,48,0,48').split(',').map(Number)) {
  let peak = 0;
  const samples = [];
  const iv = setInterval(() => {
    const v = pss();
    peak = Math.max(peak, v);
    samples.push(v);
  }, 50);
  const r = await wp.ask({ mib: 1500, nudge });
  clearInterval(iv);
  console.log(
    `nudge every ${nudge} MiB: ${r.ms.toFixed(0)} ms, ${r.nudges} nudges, renderer PSS peak ${peak} MiB, median ${samples.sort((a, b) => a - b)[samples.length >> 1]}`,
  );
}
await wp.close();
