// Throughput of the WASM chunker and Poly1305 on one core, in Node.
//   npx tsx bench/micro/chunker-poly1305.ts [--runs 7]
// MB/s = 10^6 bytes of input per second. "cpu" divides by this thread's CPU time
// (process.cpuUsage), which is what "per core" means and is less disturbed by other load on
// the machine than "wall"; both are the median of the runs, after a warm-up run.
//
// The stages themselves live in ./stages.ts, shared with the full micro suite (./node.ts, which
// adds SHA-256, AES-CTR and zstd) and the Chromium worker run (./browser.mjs); this file keeps
// the quick chunker + Poly1305 check on 256 MiB of random bytes.

import { MiB, formatResult, runStages } from './stages';
import { randomInput } from './node-inputs';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const random = randomInput(256 * MiB);
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
await runStages(
  { name: 'node', cpuSeconds },
  { random, text: random },
  { runs: RUNS, mib: 256, only: ['chunker', 'poly1305'], onResult: (r) => console.log(formatResult(r)) },
);
