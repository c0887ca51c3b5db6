// What restic's scrypt costs a Chromium worker, with a restic 0.14 key's parameters (N=2^15, r=8,
// p=3 here): hash-wasm's scrypt whole and one lane (p=1) alone, and Cairn's own ROMix
// (core/wasm/as/scrypt.ts, what the app's KDF workers run) for one lane, in a fresh worker
// after the same warm-up as kdf.worker.ts (OURS_WARM_COUNT=8 mixes of OURS_WARM_N=1024; with
// OURS_WARM_N=32768 the warm-up touches a whole lane's memory first), and then warm.
//   node bench/probes/scrypt-cost.mjs [N=32768] [r=8] [p=3]
import fs from 'node:fs';
import { workerPage } from '../lib/chromium.mjs';

const [N = 32768, r = 8, p = 3] = process.argv.slice(2).map(Number);
const lib = fs.readFileSync(new URL('../../node_modules/hash-wasm/dist/scrypt.umd.min.js', import.meta.url), 'utf8');
const W = `${lib}
self.onmessage = async (e) => {
  const { N, r, p } = e.data;
  const t = performance.now();
  await hashwasm.scrypt({ password: 'pw', salt: new Uint8Array(64), costFactor: N, blockSize: r, parallelism: p, hashLength: 64, outputType: 'binary' });
  self.postMessage({ ms: performance.now() - t });
};`;
const wp = await workerPage(W);
try {
  // WARM=count:N:p — scrypt calls made first, as a worker could while the password is typed.
  const [count = 0, wN = 1024, wp_ = 1] = (process.env.WARM ?? '').split(':').filter(Boolean).map(Number);
  for (let i = 0; i < count; i++) console.log(`warm-up N=${wN} r=8 p=${wp_}`, (await wp.ask({ N: wN, r: 8, p: wp_ })).ms.toFixed(1), 'ms');
  for (let i = 0; i < 4; i++) {
    const whole = await wp.ask({ N, r, p });
    const lane = await wp.ask({ N, r, p: 1 });
    console.log(`N=${N} r=${r}: p=${p} ${whole.ms.toFixed(0)} ms, p=1 ${lane.ms.toFixed(0)} ms`);
  }
} finally {
  await wp.close();
}

const generated = fs.readFileSync(new URL('../../core/wasm/generated/scrypt.ts', import.meta.url), 'utf8');
const b64 = [...generated.matchAll(/^ {2}'([A-Za-z0-9+/=]*)'/gm)].map((m) => m[1]).join('');
const ours = `
const bytes = Uint8Array.from(atob('${b64}'), (c) => c.charCodeAt(0));
const w = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports;
const mix = (N, r) => { w.romixSize(N, r); w.romix(N, r); };
for (let i = 0; i < ${process.env.OURS_WARM_COUNT ?? 8}; i++) mix(${process.env.OURS_WARM_N ?? 1024}, 8);
self.onmessage = (e) => {
  const t = performance.now();
  mix(e.data.N, e.data.r);
  self.postMessage({ ms: performance.now() - t });
};`;
for (let k = 0; k < 3; k++) {
  const fresh = await workerPage(ours);
  try {
    const times = [];
    for (let i = 0; i < 4; i++) times.push((await fresh.ask({ N, r })).ms.toFixed(0));
    console.log(`cairn ROMix N=${N} r=${r}, one lane, fresh worker then warm: ${times.join(', ')} ms`);
  } finally {
    await fresh.close();
  }
}
