// Runs one timed command: wall time from spawn to exit, CPU time and the peak RSS from
// /usr/bin/time (the largest single process's high-water mark), and the peak of the summed
// RSS of the whole process tree sampled from /proc every 50 ms (worker threads share their
// process's RSS; child processes add theirs). Optionally drops the page cache first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';

const PAGE = 4096;
const TIME = '/usr/bin/time';
export const haveTime = fs.existsSync(TIME);

/** Whether this process may drop the page cache (root in a sandbox may still be refused). */
export function canDropCaches() {
  try {
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

/** sync first so dirty pages (a just-written repository) are clean and can be dropped. */
export async function dropCaches() {
  await spawnQuiet('sync');
  fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
}

function spawnQuiet(cmd) {
  return new Promise((resolve) => spawn(cmd, { stdio: 'ignore' }).on('exit', resolve));
}

/** Busy and total CPU seconds of the whole machine so far (from /proc/stat). */
export function cpuStat() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const hz = 100;
  const idle = f[3] + (f[4] ?? 0);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / hz, total: total / hz };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Other engineers share this machine. Before a timed command, wait (up to maxWait seconds)
 * until the machine is quiet: less than `threshold` cores busy over a 1 s window. Returns the
 * seconds waited and the last busy level seen.
 */
export async function waitForQuiet({ maxWait = 120, threshold = 0.5 } = {}) {
  const t0 = Date.now();
  let busy;
  for (;;) {
    const a = cpuStat();
    await sleep(1000);
    const b = cpuStat();
    busy = (b.busy - a.busy) / ((b.total - a.total) / os.cpus().length);
    if (busy < threshold || (Date.now() - t0) / 1000 >= maxWait) return { waited: (Date.now() - t0) / 1000, busy };
  }
}

/** pid → ppid for every process (one pass over /proc). */
function parentMap() {
  const m = new Map();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const s = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      // comm may contain spaces and parentheses: fields start after the last ')'.
      const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
      m.set(Number(e), Number(rest[1]));
    } catch {
      // exited meanwhile
    }
  }
  return m;
}

/** Summed RSS in bytes of pid and all its descendants. */
export function treeRss(pid) {
  const parents = parentMap();
  const kids = new Map();
  for (const [p, pp] of parents) {
    if (!kids.has(pp)) kids.set(pp, []);
    kids.get(pp).push(p);
  }
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    try {
      total += Number(fs.readFileSync(`/proc/${p}/statm`, 'utf8').split(' ')[1]) * PAGE;
    } catch {
      // gone
    }
    for (const c of kids.get(p) ?? []) stack.push(c);
  }
  return total;
}

/**
 * Runs cmd with args; resolves { code, wall (s), user (s), sys (s), peakRss (bytes), stdout, stderr }.
 * The time wrapper's own few hundred KiB are not counted (its child is what we sample).
 */
export async function timed(cmd, args, { env, cwd, dropCache = false, beforeStart, sampleMs = 50, input } = {}) {
  if (dropCache) await dropCaches();
  beforeStart?.();
  const tfile = path.join(os.tmpdir(), `bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const argv = haveTime ? ['-f', '%e %M %U %S', '-o', tfile, cmd, ...args] : args;
  const cpu0 = cpuStat();
  const t0 = process.hrtime.bigint();
  const child = spawn(haveTime ? TIME : cmd, argv, { env, cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin.end(input);
  const out = [];
  const err = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  let peakTree = 0;
  const sample = () => {
    try {
      peakTree = Math.max(peakTree, treeRss(child.pid));
    } catch {
      // ignore
    }
  };
  const timer = setInterval(sample, sampleMs);
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (c, sig) => resolve(c ?? 128 + (os.constants.signals[sig] ?? 0)));
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu1 = cpuStat();
  clearInterval(timer);
  let user,
    sys,
    maxRss = 0;
  if (haveTime) {
    try {
      const lines = fs.readFileSync(tfile, 'utf8').trim().split('\n');
      const [, m, u, s] = lines[lines.length - 1].split(' ').map(Number);
      maxRss = m * 1024;
      user = u;
      sys = s;
    } catch {
      // killed before time wrote its line
    }
    fs.rmSync(tfile, { force: true });
  }
  // CPU used on the machine during the run by everything except the measured command (other
  // engineers' work, radosgw for the S3 column, the sampler): a noise indicator per run.
  const machineBusy = cpu1.busy - cpu0.busy;
  const background = user === undefined ? undefined : Math.max(0, machineBusy - user - sys);
  // The sampled tree includes the time wrapper (~1–2 MiB); the larger of the two estimates wins.
  return {
    code,
    wall,
    user,
    sys,
    background,
    peakRss: Math.max(maxRss, peakTree),
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
  };
}

/** Apparent size in bytes of every file under dir (what the repository stores). */
export function dirBytes(dir) {
  let total = 0;
  let files = 0;
  const rec = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) rec(p);
      else if (e.isFile()) {
        total += fs.statSync(p).size;
        files++;
      }
    }
  };
  if (fs.existsSync(dir)) rec(dir);
  return { bytes: total, files };
}
