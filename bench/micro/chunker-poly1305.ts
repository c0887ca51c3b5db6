// Throughput of the WASM chunker and Poly1305 on one core, in Node.
//   npx tsx bench/micro/chunker-poly1305.ts [--runs 7]
// MB/s = 10^6 bytes of input per second. "cpu" divides by this thread's CPU time
// (process.cpuUsage), which is what "per core" means and is less disturbed by other load on
// the machine than "wall"; both are the median of the runs, after a warm-up run.

import { randomFillSync } from 'node:crypto';
import { Chunker } from '../../core/chunker/chunker';
import { chunkStream } from '../../core/chunker/chunk-stream';
import { poly1305 } from '../../core/crypto/poly1305';

const MiB = 1 << 20;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const POL = 0x3da3358b4dc173n;

function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += 64 * MiB) randomFillSync(out, at, Math.min(64 * MiB, n - at));
  return out;
}

interface Sample {
  wall: number;
  cpu: number;
}

async function measure(bytes: number, body: () => unknown): Promise<{ wall: number; cpu: number }> {
  const samples: Sample[] = [];
  for (let r = -1; r < RUNS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await body();
    const wallMs = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (r >= 0) samples.push({ wall: bytes / 1e6 / (wallMs / 1e3), cpu: bytes / 1e6 / ((c.user + c.system) / 1e6) });
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) };
}

function report(name: string, r: { wall: number; cpu: number }): void {
  console.log(`${name.padEnd(44)} ${r.cpu.toFixed(0).padStart(6)} MB/s cpu ${r.wall.toFixed(0).padStart(6)} MB/s wall`);
}

const data = randomBytes(256 * MiB);
let chunks = 0;

report(
  'chunker scan, 256 MiB random, 1 MiB pieces',
  await measure(data.length, () => {
    const chunker = new Chunker(POL);
    for (let at = 0; at < data.length; at += MiB) {
      let piece = data.subarray(at, at + MiB);
      for (let n = chunker.scan(piece); n >= 0; n = chunker.scan(piece)) {
        chunks++;
        piece = piece.subarray(n);
      }
    }
  }),
);
console.log(`  (${(chunks / (RUNS + 1)).toFixed(0)} chunks per run, mean ${((data.length / chunks) * (RUNS + 1) / MiB).toFixed(2)} MiB)`);

report(
  'chunkStream (scan + contiguous copies), same',
  await measure(data.length, async () => {
    async function* pieces() {
      for (let at = 0; at < data.length; at += MiB) yield data.subarray(at, at + MiB);
    }
    for await (const chunk of chunkStream(new Chunker(POL), pieces())) if (chunk.length === 0) throw new Error('empty');
  }),
);

const key = randomBytes(32);
for (const size of [MiB, 16 * MiB]) {
  const count = (256 * MiB) / size;
  report(
    `poly1305, ${size / MiB} MiB messages x ${count}`,
    await measure(256 * MiB, () => {
      for (let i = 0; i < count; i++) poly1305(key, data.subarray(i * size, (i + 1) * size));
    }),
  );
}
