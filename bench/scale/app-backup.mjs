#!/usr/bin/env node
// Backing up the 200 000-file home tree (./home-tree.mjs) from the built app, as a Firefox or
// Safari user must: a fresh Chromium profile without File System Access's picker, a new
// repository in a radosgw bucket made through the app's form, the folder picked through
// <input webkitdirectory>, the backup; then the same folder picked again and backed up unchanged
// from the same page. restic 0.14 checks the result. The peers back up the same tree into the same
// bucket: restic 0.14 and cairn's CLI (dist/cli), first and unchanged, each at a fresh prefix.
//   CAIRN_S3_ENV=/tmp/dev-s3/env.json node bench/scale/app-backup.mjs
// Env: SCALE_TREE (the folder; default bench/data/scale/home-200000, made by home-tree.mjs),
// SCALE_NO_BUILD=1 (serve dist/app and run dist/cli as they are), SCALE_PORT (4192),
// SCALE_PEERS (restic,cairn; empty: none), SCALE_UNCHANGED=0 (the page's first backup only), SCALE_CPU_PROFILE (a folder for V8 CPU profiles of the
// page's thread and the engine worker over each backup), SCALE_KEEP=1 (keep the bench's prefixes in the bucket),
// BENCH_CHROMIUM (/usr/bin/chromium), BENCH_RESTIC (/usr/bin/restic), SCALE_OUT (a JSON file).
// What each figure covers:
// - pick→listed: setInputFiles() of the folder until the page shows "N files" (Chromium's browser
//   process walks the folder and hands the page one File per file);
// - click→progress: the click on "Back up" until the progress card shows, and until it shows the
//   engine's first counts; done: the click until the summary shows;
// - cpu: user+system seconds of every process of the profile (browser, renderer, GPU, network,
//   utility) over the backup; renderer cpu: the page's renderer, which runs the page's thread and
//   every dedicated worker (the engine and its savers) as threads of that one process;
// - PSS: the peak, sampled each second, of the summed PSS of every process of the profile, and of
//   the page's renderer alone (again: the engine worker's heap lives in it);
// - worker heaps: V8's used heap of each of the page's workers (CDP Runtime.getHeapUsage, each
//   second), the engine worker's peak apart; ArrayBuffer contents are outside this figure;
// - read: bytes the profile's processes read through read(2) (rchar of /proc/<pid>/io: files,
//   pipes and sockets alike) over the backup, beside the tree's bytes;
// - threads: CPU seconds from click to done by process kind and thread (Chromium's pools summed,
//   each Web Worker apart), those of 0.3 s or more;
// - filesRead: files whose contents the engine read, from the summary ("N read, M unchanged").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fillBucketForm, launchProfile, serveApp } from './app-serve.mjs';
import { timed } from '../lib/measure.mjs';
import { threadCpuDelta, threadCpuSeconds } from '../lib/chromium.mjs';
import { createBucket, scaleLocation } from './make-repo.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TREE = path.resolve(process.env.SCALE_TREE ?? path.join(ROOT, 'bench', 'data', 'scale', 'home-200000'));
const PORT = Number(process.env.SCALE_PORT ?? 4192);
const RESTIC = process.env.BENCH_RESTIC ?? '/usr/bin/restic';
const PEERS = (process.env.SCALE_PEERS ?? 'restic,cairn').split(',').filter(Boolean);
const PASSWORD = 'cairn-page-backup-bench';
const STAMP = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
const prefixOf = (who) => `page-backup-${STAMP}-${who}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Files and bytes of the tree, as a folder pick hands them over. */
function treeSize(dir) {
  let files = 0;
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        files++;
        bytes += fs.statSync(p).size;
      }
    }
  };
  walk(dir);
  return { files, bytes };
}

/** Every process of the Chromium started with `userDir`: its browser process and all below it. */
function profilePids(userDir) {
  const parent = new Map();
  let browser;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]));
      if (browser === undefined) {
        const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
        if (cmd.includes(`--user-data-dir=${userDir}`) && !cmd.includes('--type=')) browser = Number(d);
      }
    } catch {
      // exited meanwhile
    }
  }
  if (browser === undefined) return [];
  const out = [browser];
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, pp] of parent) {
      if (!out.includes(pp) || out.includes(pid)) continue;
      out.push(pid);
      grew = true;
    }
  }
  return out;
}

const read = (p) => {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};
const pssKiB = (pid) => Number(/^Pss:\s+(\d+)/m.exec(read(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0);
/** The renderer that runs the page's dedicated workers: the one with DedicatedWorker threads. */
const hostsWorkers = (pid) => {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).some((t) => read(`/proc/${pid}/task/${t}/comm`).startsWith('DedicatedWorker'));
  } catch {
    return false;
  }
};
const findRenderer = (pids) => pids.find((p) => read(`/proc/${p}/cmdline`).includes('--type=renderer') && hostsWorkers(p));
/** CPU seconds (user+system) and read(2) bytes of the processes, summed. */
function usage(pids) {
  let cpu = 0;
  let rchar = 0;
  for (const pid of pids) {
    const s = read(`/proc/${pid}/stat`);
    if (s) {
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(f[11]) + Number(f[12])) / 100;
    }
    rchar += Number(/^rchar:\s+(\d+)/m.exec(read(`/proc/${pid}/io`))?.[1] ?? 0);
  }
  return { cpu, rchar };
}

/** CPU seconds of the processes by kind: browser, renderer (all renderers), other (GPU, network, utility). */
function cpuByKind(pids) {
  const out = { browser: 0, renderer: 0, other: 0 };
  for (const pid of pids) {
    const cmd = read(`/proc/${pid}/cmdline`);
    const kind = !cmd.includes('--type=') ? 'browser' : cmd.includes('--type=renderer') ? 'renderer' : 'other';
    out[kind] += usage([pid]).cpu;
  }
  return out;
}

/**
 * CDP sessions to every worker of the page (non-flat, beside Playwright's own), for their V8 heap:
 * `sample()` resolves with { kind → usedSize } per worker (kind: the script's name, a number
 * appended for the second of a kind).
 */
async function workerHeaps(cdp) {
  const sessions = new Map(); // targetId → { send, kind }
  const replies = new Map();
  let id = 0;
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    replies.get(m.id)?.(m);
    replies.delete(m.id);
  });
  cdp.on('Target.detachedFromTarget', (e) => {
    for (const [t, s] of sessions) if (s.sessionId === e.sessionId) sessions.delete(t);
  });
  const attach = async (t) => {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    const base = path
      .basename(new URL(t.url).pathname)
      .replace(/-[\w-]{8}\.js$/, '')
      .replace(/\.js$/, '');
    let kind = base;
    for (let n = 2; [...sessions.values()].some((s) => s.kind === kind); n++) kind = `${base}#${n}`;
    const send = (method, params = {}) => {
      const n = ++id;
      const reply = new Promise((r) => replies.set(n, r));
      return cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: n, method, params }) }).then(() => reply);
    };
    sessions.set(t.targetId, { sessionId, send, kind });
  };
  return {
    /** Sends `method` to each worker whose kind starts with `kind`, with the replies' results. */
    async send(kind, method, params) {
      await this.sample();
      const to = [...sessions.values()].filter((s) => s.kind.startsWith(kind));
      return Promise.all(to.map(async (s) => ({ kind: s.kind, result: (await s.send(method, params)).result })));
    },
    async sample() {
      const { targetInfos } = await cdp.send('Target.getTargets');
      const workers = targetInfos.filter((t) => t.type === 'worker');
      for (const t of workers) if (!sessions.has(t.targetId)) await attach(t).catch(() => undefined);
      for (const t of sessions.keys()) if (!workers.some((w) => w.targetId === t)) sessions.delete(t);
      const out = {};
      await Promise.all(
        [...sessions.values()].map(async (s) => {
          const r = await Promise.race([s.send('Runtime.getHeapUsage'), sleep(5000)]);
          if (r?.result) out[s.kind] = r.result.usedSize;
        }),
      );
      return out;
    },
  };
}

/** Peaks of the profile's memory, sampled each second while `on`. */
function memorySampler(userDir, heaps) {
  const peak = { profilePssKiB: 0, rendererPssKiB: 0, engineHeap: 0, workerHeaps: 0, workersAlive: 0 };
  const seen = { byKind: {} };
  let renderer;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const pids = profilePids(userDir);
      let total = 0;
      for (const pid of pids) total += pssKiB(pid);
      peak.profilePssKiB = Math.max(peak.profilePssKiB, total);
      if (renderer === undefined || !pids.includes(renderer)) renderer = findRenderer(pids);
      if (renderer !== undefined) peak.rendererPssKiB = Math.max(peak.rendererPssKiB, pssKiB(renderer));
      const h = heaps ? await heaps.sample().catch(() => ({})) : {};
      const sum = Object.values(h).reduce((a, b) => a + b, 0);
      peak.workerHeaps = Math.max(peak.workerHeaps, sum);
      peak.workersAlive = Math.max(peak.workersAlive, Object.keys(h).length);
      for (const [k, v] of Object.entries(h)) seen.byKind[k] = Math.max(seen.byKind[k] ?? 0, v);
      peak.engineHeap = Math.max(peak.engineHeap, ...Object.entries(h).map(([k, v]) => (k.startsWith('engine.worker') ? v : 0)));
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), 1000);
  return {
    reset() {
      for (const k of Object.keys(peak)) peak[k] = 0;
      seen.byKind = {};
    },
    read: () => ({
      profilePssMiB: Math.round(peak.profilePssKiB / 1024),
      rendererPssMiB: Math.round(peak.rendererPssKiB / 1024),
      engineHeapMiB: Math.round(peak.engineHeap / 2 ** 20),
      workerHeapsMiB: Math.round(peak.workerHeaps / 2 ** 20),
      workersAlive: peak.workersAlive,
      heapByWorkerMiB: Object.fromEntries(Object.entries(seen.byKind).map(([k, v]) => [k, Math.round(v / 2 ** 20)])),
    }),
    renderer: () => (renderer ??= findRenderer(profilePids(userDir))),
    stop: () => clearInterval(timer),
  };
}

/** In the page: the wall-clock time (ms) each of these first shows up, polled every 50 ms. */
function watchFirst() {
  const want = {
    pending: '[data-testid="pending-folder"]',
    progressCard: '[data-testid="progress"]',
    counts: '[data-testid="progress-files"]',
    summary: '[data-testid="backup-summary"] [data-testid="snapshot-id"]',
    alert: '[role="alert"]',
  };
  const seen = {};
  const before = document.querySelector(want.summary)?.textContent;
  const timer = setInterval(() => {
    for (const [k, sel] of Object.entries(want)) {
      if (seen[k]) continue;
      const el = document.querySelector(sel);
      if (el && !(k === 'summary' && el.textContent === before)) seen[k] = Date.now();
    }
  }, 50);
  window.__firstSeen = { seen, stop: () => clearInterval(timer) };
}

/**
 * With SCALE_CPU_PROFILE=<dir>: V8 CPU profiles of the page's thread and of the engine worker
 * from the click until done, written as <dir>/<label>-page.cpuprofile and -engine.cpuprofile.
 */
async function cpuProfiles(page, heaps, label) {
  const dir = process.env.SCALE_CPU_PROFILE;
  if (!dir) return async () => {};
  fs.mkdirSync(dir, { recursive: true });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  await heaps.send('engine.worker', 'Profiler.enable');
  await heaps.send('engine.worker', 'Profiler.setSamplingInterval', { interval: 500 });
  await heaps.send('engine.worker', 'Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    fs.writeFileSync(path.join(dir, `${label}-page.cpuprofile`), JSON.stringify(profile));
    for (const r of await heaps.send('engine.worker', 'Profiler.stop'))
      if (r.result?.profile) fs.writeFileSync(path.join(dir, `${label}-engine.cpuprofile`), JSON.stringify(r.result.profile));
  };
}

/** One backup of TREE from the page: pick, click, wait; timings, CPU, reads and the summary. */
async function pageBackup(page, userDir, sampler, files, heaps, label) {
  const pids0 = profilePids(userDir);
  const u0 = usage(pids0);
  const r0 = sampler.renderer();
  const ru0 = r0 ? usage([r0]) : undefined;
  sampler.reset();
  await page.evaluate(watchFirst);
  const byKind0 = cpuByKind(pids0);
  const tPick = Date.now();
  await page.getByLabel('Choose a folder to back up').setInputFiles(TREE, { timeout: 0 });
  const tSet = Date.now();
  const name = path.basename(TREE);
  await page
    .getByTestId('pending-folder')
    .filter({ hasText: `${files} files` })
    .waitFor({ timeout: 0 });
  const byKind1 = cpuByKind(profilePids(userDir));
  const pickCpuSeconds = Object.fromEntries(Object.entries(byKind1).map(([k, v]) => [k, +(v - (byKind0[k] ?? 0)).toFixed(1)]));
  const stopProfiles = await cpuProfiles(page, heaps, label);
  const threads0 = threadCpuSeconds(profilePids(userDir));
  const tClick = Date.now();
  await page.getByRole('button', { name: `Back up “${name}”` }).click();
  await page.waitForFunction(() => window.__firstSeen.seen.summary || window.__firstSeen.seen.alert, undefined, { timeout: 4 * 3600_000, polling: 1000 });
  await stopProfiles();
  const seen = await page.evaluate(() => (window.__firstSeen.stop(), window.__firstSeen.seen));
  const pids1 = profilePids(userDir);
  const u1 = usage(pids1);
  const threads = threadCpuDelta(threads0, threadCpuSeconds(pids1), 0.3).map((g) => ({ ...g, group: g.group.replace(/ \d+: /, ' ') }));
  const r1 = sampler.renderer();
  const ru1 = r1 && r1 === r0 ? usage([r1]) : undefined;
  const mem = sampler.read();
  const s = (t) => (t ? +((t - tClick) / 1000).toFixed(2) : undefined);
  const out = {
    pickToListed: +((seen.pending - tPick) / 1000).toFixed(2),
    setInputFiles: +((tSet - tPick) / 1000).toFixed(2),
    pickCpuSeconds,
    clickToProgressCard: s(seen.progressCard),
    clickToCounts: s(seen.counts),
    clickToDone: s(seen.summary ?? seen.alert),
    pickToDone: +(((seen.summary ?? seen.alert) - tPick) / 1000).toFixed(2),
    cpuSeconds: +(u1.cpu - u0.cpu).toFixed(1),
    rendererCpuSeconds: ru1 && ru0 ? +(ru1.cpu - ru0.cpu).toFixed(1) : undefined,
    readMiB: +((u1.rchar - u0.rchar) / 2 ** 20).toFixed(1),
    ...mem,
    threads,
  };
  if (seen.alert && !seen.summary) {
    out.error = await page.getByRole('alert').first().textContent();
    return out;
  }
  const summary = page.getByTestId('backup-summary');
  const n = async (id) => Number(await summary.getByTestId(id).textContent());
  out.filesNew = await n('files-new');
  out.filesChanged = await n('files-changed');
  out.filesUnmodified = await n('files-unmodified');
  out.snapshot = (await summary.getByTestId('snapshot-id').textContent()).trim();
  // "Processed N files, … in T: R read, U unchanged since the last snapshot." (the second part
  // only when some were not read).
  const text = await summary.textContent();
  const processed = /Processed (\d+) files/.exec(text);
  const readPart = /: (\d+) read, (\d+) unchanged/.exec(text);
  out.filesProcessed = processed ? Number(processed[1]) : undefined;
  out.filesRead = readPart ? Number(readPart[1]) : out.filesProcessed;
  return out;
}

async function pageRun(app, loc, files) {
  const { ctx, userDir } = await launchProfile('scale-backup-');
  let sampler;
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    // As in Firefox and Safari: no File System Access picker, the folder comes from <input webkitdirectory>.
    await page.addInitScript(() => delete window.showDirectoryPicker);
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Create a repository' }).waitFor({ timeout: 120_000 });
    await fillBucketForm(page, loc);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create repository' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor({ timeout: 300_000 });
    const heaps = await workerHeaps(await ctx.newCDPSession(page)).catch((e) => console.error(`no worker heaps: ${e.message}`));
    sampler = memorySampler(userDir, heaps);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Back up', exact: true }).click();
    const first = await pageBackup(page, userDir, sampler, files, heaps, 'first');
    console.error(`  page, first: ${JSON.stringify(first)}`);
    if (first.error || process.env.SCALE_UNCHANGED === '0') return { first };
    const unchanged = await pageBackup(page, userDir, sampler, files, heaps, 'unchanged');
    console.error(`  page, unchanged: ${JSON.stringify(unchanged)}`);
    return { first, unchanged };
  } finally {
    sampler?.stop();
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
}

/** A CLI (restic or cairn) on loc's repository, under nice, timed by /usr/bin/time. */
function cli(command, loc) {
  const env = {
    ...process.env,
    RESTIC_PASSWORD: PASSWORD,
    AWS_ACCESS_KEY_ID: loc.env.accessKeyId,
    AWS_SECRET_ACCESS_KEY: loc.env.secretAccessKey,
    AWS_DEFAULT_REGION: loc.env.region,
    RESTIC_CACHE_DIR: loc.cache,
  };
  return async (...args) => {
    const r = await timed('nice', ['-n', '19', ...command, '-r', loc.restic, ...args], { env });
    if (r.code !== 0) throw new Error(`${command.at(-1)} ${args[0]}: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return r;
  };
}

const row = (r) => ({ wall: +r.wall.toFixed(1), cpuSeconds: +(r.user + r.sys).toFixed(1), peakRssMiB: Math.round(r.peakRss / 2 ** 20) });

/** A peer's first and unchanged backups of TREE into a fresh prefix. */
async function peerRun(name, command) {
  const loc = { ...locationAt(prefixOf(name)), cache: fs.mkdtempSync(path.join(os.tmpdir(), `scale-backup-${name}-cache-`)) };
  const run = cli(command, loc);
  try {
    await run('init', '--repository-version', '2', '-q');
    const first = row(await run('backup', '-q', '--host', 'page-backup', TREE));
    console.error(`  ${name}, first: ${JSON.stringify(first)}`);
    const unchanged = row(await run('backup', '-q', '--host', 'page-backup', TREE));
    console.error(`  ${name}, unchanged: ${JSON.stringify(unchanged)}`);
    return { prefix: loc.prefix, first, unchanged };
  } finally {
    fs.rmSync(loc.cache, { recursive: true, force: true });
  }
}

let bucketMade = false;
function locationAt(prefix) {
  const l = scaleLocation();
  if (!bucketMade) createBucket(l.env); // a fresh radosgw has no scale bucket yet
  bucketMade = true;
  return { ...l, prefix, restic: `s3:${l.env.endpoint}/${l.env.bucket}/${prefix}` };
}

/** restic 0.14's check of the page's repository, and the file count of its newest snapshot. */
async function resticCheck(loc) {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-backup-check-'));
  const run = cli([RESTIC], { ...loc, cache });
  try {
    const check = await run('check');
    const stats = JSON.parse((await run('stats', '--json', 'latest')).stdout);
    const snaps = JSON.parse((await run('snapshots', '--json')).stdout);
    return { clean: true, checkWall: +check.wall.toFixed(1), latestFiles: stats.total_file_count, snapshots: snaps.length };
  } catch (e) {
    return { clean: false, error: e.message };
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
}

/** Removes a bench prefix from the bucket (never another's: only page-backup-<this run's stamp>-…). */
async function removePrefix(prefix) {
  if (!prefix.startsWith(`page-backup-${STAMP}-`)) throw new Error(`refusing to remove ${prefix}`);
  const { S3Client, ListObjectsV2Command, DeleteObjectsCommand } = await import('@aws-sdk/client-s3');
  const l = scaleLocation();
  const s3 = new S3Client({
    endpoint: l.env.endpoint,
    region: l.env.region,
    forcePathStyle: true,
    credentials: { accessKeyId: l.env.accessKeyId, secretAccessKey: l.env.secretAccessKey },
  });
  for (let token; ;) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: l.env.bucket, Prefix: `${prefix}/`, ContinuationToken: token }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key }));
    if (keys.length) await s3.send(new DeleteObjectsCommand({ Bucket: l.env.bucket, Delete: { Objects: keys } }));
    if (!page.IsTruncated) return;
    token = page.NextContinuationToken;
  }
}

const size = treeSize(TREE);
console.error(`tree ${TREE}: ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB`);
const app = await serveApp(PORT, { also: [['node', ['scripts/build-cli.mjs', '--quiet']]], nice: true });
const result = { git: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(), tree: TREE, ...size };
result.load = { before: os.loadavg()[0] };
const pageLoc = locationAt(prefixOf('page'));
try {
  result.page = { prefix: pageLoc.prefix, ...(await pageRun(app, pageLoc, size.files)) };
} finally {
  app.stop();
}
if (result.page.first.error === undefined) result.page.check = await resticCheck(pageLoc);
console.error(`  page, restic check: ${JSON.stringify(result.page.check)}`);
const peers = { restic: [RESTIC], cairn: [process.execPath, path.join(ROOT, 'dist', 'cli', 'cairn.mjs')] };
result.peers = {};
for (const p of PEERS) result.peers[p] = await peerRun(p, peers[p]).catch((e) => ({ error: e.message }));
result.load.after = os.loadavg()[0];
if (process.env.SCALE_KEEP !== '1') for (const p of [pageLoc.prefix, ...Object.values(result.peers).map((p) => p.prefix)]) if (p) await removePrefix(p);

const f = (x) => (x === undefined ? '–' : String(x));
const lines = [`| ${size.files} files, ${(size.bytes / 1e6).toFixed(0)} MB | wall s | CPU s | peak MiB | notes |`, '|---|---|---|---|---|'];
for (const phase of ['first', 'unchanged']) {
  const p = result.page[phase];
  if (p)
    lines.push(
      `| page, ${phase} | ${f(p.pickToDone)} | ${f(p.cpuSeconds)} (renderer ${f(p.rendererCpuSeconds)}) | profile PSS ${f(p.profilePssMiB)}, renderer ${f(p.rendererPssMiB)}, engine heap ${f(p.engineHeapMiB)} | ` +
        `pick→listed ${f(p.pickToListed)} s, click→progress ${f(p.clickToProgressCard)} s, →counts ${f(p.clickToCounts)} s; files read ${f(p.filesRead)}, read(2) ${f(p.readMiB)} MiB${p.error ? `; FAILED ${p.error}` : ''} |`,
    );
  for (const [name, r] of Object.entries(result.peers)) {
    const x = r[phase];
    if (x) lines.push(`| ${name} CLI, ${phase} | ${x.wall} | ${x.cpuSeconds} | RSS ${x.peakRssMiB} | |`);
    else if (phase === 'first') lines.push(`| ${name} CLI | | | | FAILED ${r.error} |`);
  }
}
console.log(lines.join('\n'));
console.log(`restic check of the page's repository: ${JSON.stringify(result.page.check)}`);
if (process.env.SCALE_OUT) fs.writeFileSync(process.env.SCALE_OUT, JSON.stringify(result, null, 2));
