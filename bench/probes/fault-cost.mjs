// What fresh memory costs the threads of a Chromium renderer, by operation: a worker runs one
// operation over 1 GiB in pieces of the given size, and the CPU (of it in the kernel) and minor
// page faults of the renderer's threads are taken from /proc around it. Linux only. On this
// machine's VM a 4 KiB page fault costs ~3–10 µs, so memory touched for the first time runs at
// 0.4–1.2 GB/s: measured with it (Chromium 156, one run), WebCrypto digests from 1 MiB on and
// every AES-CTR output take one fault per page (digest ≤ 512 KiB 1176 MB/s and ~0 faults,
// ≥ 1 MiB 530–555 MB/s and 265k faults per GiB; AES-CTR 32–512 KiB pieces 430–770 MB/s and
// 215–255k faults per GiB whatever the garbage nudges), while ArrayBuffers made by JS are
// reused once collected (128 KiB with a nudge per MiB: 3k faults per GiB). Freeing each
// AES-CTR output at once (aes-free: ArrayBuffer.transfer(0) detaches it) does not bring its
// pages back either: 128 KiB pieces went from 687 to 302 MB/s with the same 261–266k faults
// per GiB, and 1 MiB pieces stayed at 650 MB/s and 792k (2026-12-03, one run each).
//
//   node bench/probes/fault-cost.mjs [op:bytes[:nudge bytes] …]
//   ops: digest, aes, aes-transfer (the output moved with ArrayBuffer.transfer()), aes-free, alloc (new Uint8Array, touched), blob-read
import fs from 'node:fs';
import { threadCpuDelta, threadCpuSeconds, workerPage } from '../lib/chromium.mjs';

const W = `
const key = crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'AES-CTR' }, false, ['encrypt']);
const aes = async (data) => crypto.subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 128 }, await key, data);
const ops = {
  digest: (data) => crypto.subtle.digest('SHA-256', data),
  aes,
  'aes-transfer': async (data) => (await aes(data)).transfer(),
  'aes-free': async (data) => (await aes(data)).transfer(0),
  alloc: (data) => { const b = new Uint8Array(data.length); for (let j = 0; j < b.length; j += 4096) b[j] = 1; },
  'blob-read': (data) => new Blob([data]).arrayBuffer(),
};
self.onmessage = async (e) => {
  const { op, size, mib, nudge } = e.data;
  const data = new Uint8Array(size).fill(3);
  let made = 0;
  const t = performance.now();
  for (let i = 0; i < Math.ceil((mib << 20) / size); i++) {
    await ops[op](data);
    // What core/memory/garbage.ts does: an untouched large buffer makes V8 collect.
    if (nudge && (made += size) >= nudge) { made = 0; self.x = new ArrayBuffer(64 << 20); self.x = undefined; }
  }
  self.postMessage({ ms: performance.now() - t });
};`;

const wp = await workerPage(W);
const pids = () =>
  fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(wp.profile);
      } catch {
        return false;
      }
    });
const cases = process.argv.slice(2).length
  ? process.argv.slice(2)
  : [
      'digest:524288',
      'digest:1048576',
      'digest:16777216',
      'aes:131072',
      'aes:131072:1048576',
      'aes-transfer:131072:1048576',
      'alloc:131072',
      'alloc:131072:1048576',
      'alloc:1048576:4194304',
    ];
for (const c of cases) {
  const [op, bytes, nudge] = c.split(':');
  const m = { op, size: Number(bytes), nudge: Number(nudge ?? 0) };
  await wp.ask({ ...m, mib: 64 }); // warm-up
  const t0 = threadCpuSeconds(pids());
  const r = await wp.ask({ ...m, mib: 1024 });
  const threads = threadCpuDelta(t0, threadCpuSeconds(pids()), 0.02).filter((x) => x.group.startsWith('renderer'));
  console.log(
    `${c.padEnd(28)} ${((1024 * 1.048576) / (r.ms / 1000)).toFixed(0).padStart(5)} MB/s  ` +
      threads.map((x) => `${x.group.replace(/renderer \d+: /, '')}: CPU ${x.seconds} s (sys ${x.sys}), ${Math.round(x.faults / 1000)}k faults`).join('; '),
  );
}
await wp.close();
