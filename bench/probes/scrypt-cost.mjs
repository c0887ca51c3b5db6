// What restic's scrypt costs a Chromium worker: hash-wasm's scrypt (what the app runs) with a
// restic 0.14 key's parameters (N=2^15, r=8, p=3 here), whole, and one lane (p=1) alone, so the
// gain of running scrypt's p independent lanes on separate workers can be read off.
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
