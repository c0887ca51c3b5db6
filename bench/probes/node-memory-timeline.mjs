// When does a CLI command's memory peak, and in which thread? Preload into the command (it is
// inherited by every worker thread through execArgv):
//
//   MEM_TIMELINE=/tmp/mem node --import ./bench/probes/node-memory-timeline.mjs dist/cli/cairn.mjs backup …
//   MEM_TIMELINE=/tmp/mem NODE_OPTIONS="--import $PWD/bench/probes/node-memory-timeline.mjs" bin/cairn backup …
//
// Each thread appends "ms rss heapUsed external arrayBuffers" (MiB; rss is the whole process's)
// every MEM_TIMELINE_MS (default 100) to <MEM_TIMELINE>.<pid>.<threadId>; summarise with
//   node bench/probes/node-memory-timeline.mjs <MEM_TIMELINE>   (the peaks of each thread)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';

const MiB = 1 << 20;

function sample(file, t0) {
  const m = process.memoryUsage();
  const row = [Date.now() - t0, m.rss, m.heapUsed, m.external, m.arrayBuffers].map((v, i) => (i === 0 ? v : (v / MiB).toFixed(1)));
  fs.appendFileSync(file, row.join(' ') + '\n');
}

function start(prefix) {
  const file = `${prefix}.${process.pid}.${threadId}`;
  const t0 = Number(process.env.MEM_TIMELINE_T0 ?? Date.now());
  process.env.MEM_TIMELINE_T0 = String(t0); // workers started later share the clock
  const every = Number(process.env.MEM_TIMELINE_MS ?? 100);
  setInterval(() => sample(file, t0), every).unref();
}

function summarise(prefix) {
  const dir = path.dirname(prefix);
  const base = path.basename(prefix);
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.startsWith(base + '.'))
    .sort()) {
    const rows = fs
      .readFileSync(`${dir}/${name}`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number));
    const peak = (i) => rows.reduce((a, r) => (r[i] > a[i] ? r : a), rows[0]);
    const [t, rss] = peak(1);
    const [th, , heap] = peak(2);
    const [te, , , ext] = peak(3);
    console.log(`${name}: rss peak ${rss} MiB at ${t} ms; heap peak ${heap} at ${th}; external peak ${ext} at ${te}; ${rows.length} samples`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) summarise(process.argv[2]);
else if (process.env.MEM_TIMELINE) start(process.env.MEM_TIMELINE);
