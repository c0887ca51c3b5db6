// Which threads of Chromium spend a restore's (or ZIP's, backup's) CPU: backs up a dataset in
// the bench page, then reads every thread's utime+stime (/proc/<pid>/task/<tid>/stat) of the
// profile's processes before and after the operation, and prints the CPU seconds by process
// type and thread name. Linux only.
//
//   node bench/probes/thread-cpu.mjs [dataset dir] [restore|zip|backup|unchanged]
//   THREAD_CPU_BY_TID=1: a row per thread instead of per thread name
import fs from 'node:fs';
import path from 'node:path';
import { openBenchPage } from '../browser/build.mjs';
import { ROOT } from '../lib/config.mjs';

const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d1-mixed'));
const op = process.argv[3] ?? 'restore';
const { page, profile, close } = await openBenchPage('threadcpu', { dataset });
const tick = 100; // USER_HZ
const kind = (cmd) =>
  cmd.includes('--type=renderer') ? (cmd.includes('--top-chrome-webui') ? 'ui-renderer' : 'renderer') : (/--type=([\w-]+)/.exec(cmd)?.[1] ?? 'browser');
/** tid → { label, cpu s } for every thread of the profile's processes (renderers keyed by pid too). */
function sample() {
  const out = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes(profile) && !(cmd.includes('chromium') && cmd.includes(`--user-data-dir=${profile}`))) continue;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const st = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const comm = /\((.*)\)/.exec(st)[1].replace(/\d+$/, '#');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        out.set(`${pid}/${tid}`, {
          label: `${kind(cmd)} ${pid}: ${comm}`,
          cpu: (Number(f[11]) + Number(f[12])) / tick,
          sys: Number(f[12]) / tick,
          faults: Number(f[7]),
        });
      } catch {}
    }
  }
  return out;
}
// A backup is measured as the first one; a restore or ZIP, of the snapshot a first backup made.
// 'unchanged': a second backup of the same folder, picked again (a served list is used up).
const snapshotId = op === 'backup' ? undefined : (await page.evaluate(() => window.cairnBench.backup())).snapshotId;
if (op === 'unchanged') await page.setInputFiles('#src', dataset, { timeout: 0 });
const b0 = sample();
// Threads that end with the operation (a backup's savers) are gone by the last sample: keep
// each thread's latest reading, sampled every 100 ms along the way.
const seen = new Map();
const keep = (m) => {
  for (const [k, v] of m) seen.set(k, v);
};
// THREAD_CPU_TIMELINE=1: how many cores were busy in each half second (all of Chromium).
const timeline = [];
let lastTotal = 0;
const ticker = setInterval(() => {
  keep(sample());
  if (!process.env.THREAD_CPU_TIMELINE) return;
  const total = [...seen].reduce((s, [k, v]) => s + v.cpu - (b0.get(k)?.cpu ?? 0), 0);
  timeline.push(total - lastTotal);
  lastTotal = total;
}, 100);
const t0 = Date.now();
if (op === 'zip') await page.evaluate((id) => window.cairnBench.zip(id), snapshotId);
else if (op === 'restore') await page.evaluate((id) => window.cairnBench.restore(id, 'tc'), snapshotId);
else await page.evaluate(() => window.cairnBench.backup());
const wall = (Date.now() - t0) / 1000;
clearInterval(ticker);
keep(sample());
const after = seen;
const by = new Map();
const sysBy = new Map();
const faultsBy = new Map();
for (const [k, v] of after) {
  const d = v.cpu - (b0.get(k)?.cpu ?? 0);
  // THREAD_CPU_BY_TID=1: one row per thread (the engine and each saver are all "DedicatedWorker").
  const label = process.env.THREAD_CPU_BY_TID ? `${v.label} ${k.split('/')[1]}` : v.label;
  if (d > 0) by.set(label, (by.get(label) ?? 0) + d);
  if (d > 0) sysBy.set(label, (sysBy.get(label) ?? 0) + v.sys - (b0.get(k)?.sys ?? 0));
  if (d > 0) faultsBy.set(label, (faultsBy.get(label) ?? 0) + v.faults - (b0.get(k)?.faults ?? 0));
}
const rows = [...by].sort((a, b) => b[1] - a[1]);
const total = rows.reduce((s, [, v]) => s + v, 0);
console.log(`${op}: ${wall.toFixed(1)} s wall, ${total.toFixed(1)} CPU-s in all`);
for (const [l, v] of rows.filter(([, v]) => v >= 0.05))
  console.log(
    `  ${v.toFixed(2).padStart(6)}  (kernel ${sysBy.get(l).toFixed(2).padStart(5)}, ${String(Math.round(faultsBy.get(l) / 1000)).padStart(4)}k faults)  ${l}`,
  );
if (timeline.length) {
  const halves = [];
  for (let i = 0; i < timeline.length; i += 5) halves.push(timeline.slice(i, i + 5).reduce((a, b) => a + b, 0) / 0.5);
  console.log('cores busy per 0.5 s: ' + halves.map((c) => c.toFixed(1)).join(' '));
}
await close();
