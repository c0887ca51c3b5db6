// Which threads of Chromium spend a restore's (or ZIP's, backup's) CPU: backs up a dataset in
// the bench page, then reads every thread's utime+stime (/proc/<pid>/task/<tid>/stat) of the
// profile's processes before and after the operation, and prints the CPU seconds by process
// type and thread name. Linux only.
//
//   node bench/browser/thread-cpu.mjs [dataset dir] [restore|zip|backup]
import fs from 'node:fs';
import path from 'node:path';
import { openBenchPage } from './build.mjs';
import { ROOT } from '../lib/config.mjs';

const dataset = path.resolve(process.argv[2] ?? path.join(ROOT, 'bench/data/s1/d1-mixed'));
const op = process.argv[3] ?? 'restore';
const { page, profile, close } = await openBenchPage('threadcpu', { dataset });
const tick = 100; // USER_HZ
const kind = (cmd) => (cmd.includes('--type=renderer') ? (cmd.includes('--top-chrome-webui') ? 'ui-renderer' : 'renderer') : (/--type=([\w-]+)/.exec(cmd)?.[1] ?? 'browser'));
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
        out.set(`${pid}/${tid}`, { label: `${kind(cmd)} ${pid}: ${comm}`, cpu: (Number(f[11]) + Number(f[12])) / tick });
      } catch {}
    }
  }
  return out;
}
// A backup is measured as the first one; a restore or ZIP, of the snapshot a first backup made.
const snapshotId = op === 'backup' ? undefined : (await page.evaluate(() => window.cairnBench.backup())).snapshotId;
const b0 = sample();
const t0 = Date.now();
if (op === 'zip') await page.evaluate((id) => window.cairnBench.zip(id), snapshotId);
else if (op === 'restore') await page.evaluate((id) => window.cairnBench.restore(id, 'tc'), snapshotId);
else await page.evaluate(() => window.cairnBench.backup());
const wall = (Date.now() - t0) / 1000;
const after = sample();
const by = new Map();
for (const [k, v] of after) {
  const d = v.cpu - (b0.get(k)?.cpu ?? 0);
  if (d > 0) by.set(v.label, (by.get(v.label) ?? 0) + d);
}
const rows = [...by].sort((a, b) => b[1] - a[1]);
const total = rows.reduce((s, [, v]) => s + v, 0);
console.log(`${op}: ${wall.toFixed(1)} s wall, ${total.toFixed(1)} CPU-s in all`);
for (const [l, v] of rows.filter(([, v]) => v >= 0.05)) console.log(`  ${v.toFixed(2).padStart(6)}  ${l}`);
await close();
