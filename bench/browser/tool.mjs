// The browser column: cairn's real worker pipeline (workers/engine.worker.ts + its file-saver
// workers) in headless Debian Chromium, driven through the bench page (page.ts) with Playwright.
//   source      the dataset folder as `webkitdirectory` files (setInputFiles on the folder,
//               re-selected before every backup so changed files are seen; not timed), or with
//               BENCH_BROWSER_SOURCE=opfs a mirror of it in OPFS backed up through its
//               directory handle, as a folder picked with showDirectoryPicker is (synced
//               before every backup, not timed)
//   local       repository in OPFS (on disk in the persistent profile under BENCH_DATA/scratch)
//   s3          repository in the local radosgw, S3 keys given to the engine (CORS allows *)
//   restore     into an OPFS folder; file count and bytes are checked
//   zip         the app's streamed ZIP download of the snapshot, pulled by the page and dropped
//   check       not in the EngineApi: reported as unavailable (check-subset too)
// Wall time is taken around the page call; peak memory is the summed PSS of all Chromium
// processes of this profile (browser, renderer with the engine and saver workers, utility
// processes), sampled from /proc every second, and separately that of the renderers summed and
// of the page's own renderer (see usage); CPU is their utime+stime delta. Unlike the CLIs, the engine
// keeps the repository open between phases (as the app does after one unlock), so re-backups
// do not pay key derivation and index loading again.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/config.mjs';
import { CHROMIUM_FLAGS, serve, staticRoutes, threadCpuDelta, threadCpuSeconds } from '../lib/chromium.mjs';
import { cpuStat, dropCaches } from '../lib/measure.mjs';
import { deletePrefix, prefixBytes } from '../lib/s3.mjs';
import { PASSWORD, warm } from '../lib/tools.mjs';
import { buildBenchPage } from './build.mjs';

const ENGINE = path.join(ROOT, 'workers/engine.worker.ts');
/** BENCH_BROWSER_SOURCE=opfs: back up a copy of the dataset in OPFS through its directory handle. */
const STAGED = process.env.BENCH_BROWSER_SOURCE === 'opfs';
const HZ = 100;
/** BENCH_THREADS=1: log each timed call's CPU by process and thread (browser, renderer workers, ...). */
const THREADS = process.env.BENCH_THREADS === '1';

/** PIDs of the Chromium processes started with this profile directory. */
function profilePids(profile) {
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(profile)) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}

/** 'ui' for a renderer of Chromium's own interface (--top-chrome-webui), 'renderer' for the others. */
const kinds = new Map();
const rendererKind = (p) => {
  if (!kinds.has(p)) {
    const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
    kinds.set(p, !cmd.includes('--type=renderer') ? undefined : cmd.includes('--top-chrome-webui') ? 'ui' : 'renderer');
  }
  return kinds.get(p);
};

/**
 * CPU of these processes, and their memory: summed RSS (cheap, from statm), or with `pss` the
 * PSS (proportional set size, from smaps_rollup) — Chromium's processes map the same 200+ MB
 * binary and share memory with each other, so summed RSS counts those pages once per process.
 * smaps_rollup walks every mapping and costs real CPU on large processes: sample it sparingly.
 * `page` is the renderer processes summed (as reported before: the page's, plus Chromium's own
 * interface renderer and the spare renderer it keeps for the next navigation); `pageProcess`
 * the renderer that runs the page, its engine and its saver workers: the largest renderer
 * other than the interface one (the spare one holds no page: ~20 MiB).
 */
function usage(pids, { pss = false } = {}) {
  let rss = 0;
  let page = 0;
  let cpu = 0;
  const each = [];
  for (const p of pids) {
    try {
      let bytes;
      if (pss) {
        const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
        bytes = m ? Number(m[1]) * 1024 : undefined;
      }
      bytes ??= Number(fs.readFileSync(`/proc/${p}/statm`, 'utf8').split(' ')[1]) * 4096;
      rss += bytes;
      const kind = rendererKind(p);
      if (kind) {
        page += bytes;
        each.push({ kind, bytes });
      }
      const s = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(f[11]) + Number(f[12])) / HZ;
    } catch {
      // gone
    }
  }
  each.sort((a, b) => b.bytes - a.bytes);
  const pageProcess = each.find((r) => r.kind === 'renderer')?.bytes ?? 0;
  return { rss, page, pageProcess, cpu, renderers: each.map((r) => `${Math.round(r.bytes / 2 ** 20)}${r.kind === 'ui' ? ' ui' : ''}`) };
}

export async function chromiumTool(cfg, { s3, log }) {
  const unavailable = [];
  if (!fs.existsSync(ENGINE)) return { targets: [], unavailable: ['cairn in Chromium: workers/engine.worker.ts does not exist yet'] };
  if (!fs.existsSync(cfg.chromium)) return { targets: [], unavailable: [`cairn in Chromium: no Chromium at ${cfg.chromium}`] };
  const outDir = path.join(cfg.dataRoot, 'browser-build');
  try {
    await buildBenchPage(outDir);
  } catch (e) {
    return { targets: [], unavailable: [`cairn in Chromium: the bench page (workers/engine.worker.ts) does not build: ${e.message.split('\n')[0]}`] };
  }
  const server = await serve(staticRoutes(outDir));
  const profile = path.join(cfg.scratch, 'chromium-profile');
  fs.rmSync(profile, { recursive: true, force: true });
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(profile, { executablePath: cfg.chromium, headless: true, args: CHROMIUM_FLAGS });
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(server.url + '/');
  await page.waitForFunction(() => document.title === 'cairn bench ready', null, { timeout: 30000 });
  const chromeFiles = [cfg.chromium, '/usr/lib/chromium/chromium'];

  /** Runs fn in the page as one timed command shaped like measure.timed's result. */
  const timedCall = async (fn, { dropCache } = {}) => {
    if (dropCache) {
      await dropCaches();
      warm(chromeFiles);
    }
    const pids = profilePids(profile);
    const u0 = usage(pids);
    // Threads that end during the call (the saver and decode workers) are read every 250 ms
    // and counted with their last reading.
    const th0 = THREADS ? threadCpuSeconds(pids) : undefined;
    const th1 = new Map(th0);
    const thTimer =
      th0 &&
      setInterval(() => {
        for (const [k, v] of threadCpuSeconds(profilePids(profile))) th1.set(k, v);
      }, 250);
    const m0 = cpuStat();
    const p0 = usage(pids, { pss: true });
    let peak = p0.rss;
    let peakPage = p0.page;
    let peakOne = p0.pageProcess;
    let atPeak = p0.renderers;
    const timer = setInterval(() => {
      const u = usage(profilePids(profile), { pss: true });
      peak = Math.max(peak, u.rss);
      if (u.page > peakPage) atPeak = u.renderers;
      peakPage = Math.max(peakPage, u.page);
      peakOne = Math.max(peakOne, u.pageProcess);
    }, 1000);
    const t0 = process.hrtime.bigint();
    let value;
    try {
      value = await fn();
    } finally {
      clearInterval(timer);
      clearInterval(thTimer);
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    if (th0) {
      for (const [k, v] of threadCpuSeconds(profilePids(profile))) th1.set(k, v);
      for (const { group, seconds, sys, faults } of threadCpuDelta(th0, th1))
        log(
          `    cpu ${seconds.toFixed(2).padStart(6)} s (sys ${sys.toFixed(2).padStart(5)})  ${String(Math.round(faults / 1000)).padStart(5)}k faults  ${group}`,
        );
    }
    const u1 = usage(profilePids(profile), { pss: true });
    if (u1.page > peakPage) atPeak = u1.renderers;
    const m1 = cpuStat();
    const cpu = u1.cpu - u0.cpu;
    return {
      code: 0,
      wall,
      user: cpu,
      sys: 0,
      peakRss: Math.max(peak, u1.rss),
      peakPageRss: Math.max(peakPage, u1.page),
      peakPageProcess: Math.max(peakOne, u1.pageProcess),
      renderersAtPeak: atPeak,
      background: Math.max(0, m1.busy - m0.busy - cpu),
      value,
    };
  };

  const tool = {
    name: 'chromium',
    cfg,
    warmFiles: () => chromeFiles,
    repoFor(target, tag) {
      if (target === 'local') {
        const loc = { kind: 'opfs', name: tag };
        return {
          loc,
          size: () => page.evaluate((n) => window.cairnBench.opfsRepoBytes(n), tag),
          remove: () => page.evaluate((n) => window.cairnBench.removeOpfsRepo(n), tag),
        };
      }
      const prefix = `${tag}-${Date.now().toString(36)}`;
      const loc = {
        kind: 's3',
        endpoint: s3.endpoint,
        region: s3.region,
        bucket: s3.bucket,
        prefix,
        pathStyle: true,
        auth: { type: 'keys', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      };
      return {
        loc,
        size: () => prefixBytes(s3, prefix),
        remove: async () => {
          await page.evaluate(() => window.cairnBench.close());
          await deletePrefix(s3, prefix);
        },
      };
    },
    async init(repo) {
      // BENCH_SAVER_WORKERS: a fixed file-saver worker count (default: the app's own choice).
      const savers = Number(process.env.BENCH_SAVER_WORKERS) || undefined;
      // BENCH_TUNE: the engine's pool and pack knobs as JSON, e.g. {"packBuffersPerWorker":2}.
      const tune = process.env.BENCH_TUNE ? JSON.parse(process.env.BENCH_TUNE) : undefined;
      await page.evaluate(({ loc, pw, savers, tune }) => window.cairnBench.init(loc, pw, savers, tune), { loc: repo.loc, pw: PASSWORD, savers, tune });
    },
    async backup(repo, dir, opts = {}) {
      let r;
      if (STAGED) {
        // The folder-picker path: the dataset mirrored into OPFS (in a page of its own, closed
        // before timing, so its 50 000 Files are gone), backed up through its directory handle.
        const stager = await context.newPage();
        await stager.goto(server.url + '/');
        await stager.waitForFunction(() => document.title === 'cairn bench ready', null, { timeout: 60_000 });
        await stager.setInputFiles('#src', dir, { timeout: 0 });
        await stager.evaluate(() => window.cairnBench.stage());
        await stager.close();
        r = await timedCall(() => page.evaluate((root) => window.cairnBench.backupStaged(root), path.basename(dir)), opts);
      } else {
        // Selecting 50 000 files takes a while; it is the user's folder pick, not the backup.
        await page.setInputFiles('#src', dir, { timeout: 0 });
        r = await timedCall(() => page.evaluate(() => window.cairnBench.backup()), opts);
      }
      const v = r.value;
      if (v.warnings?.length) log(`  chromium: ${v.warnings.length} warnings, first: ${v.warnings[0].message}`);
      log(
        `  chromium: ${v.progressTicks ? `${v.progressTicks} progress ticks reached the page (as in the app, the engine scanned for totals)` : 'NO progress reached the page: the engine ran no scan, unlike in the app'}`,
      );
      return {
        ...r,
        summary: {
          snapshot_id: v.snapshotId,
          data_added: v.summary.dataAdded,
          files_read: v.filesRead,
          files_new: v.summary.filesNew,
          files_changed: v.summary.filesChanged,
          dirs_changed: v.summary.dirsChanged,
          tree_blobs: v.summary.treeBlobs,
        },
      };
    },
    async restore(repo, snapshot, target, opts = {}) {
      const name = path.basename(target);
      await page.evaluate((n) => window.cairnBench.removeRestore(n), name);
      const r = await timedCall(() => page.evaluate(({ s, n }) => window.cairnBench.restore(s, n), { s: snapshot, n: name }), opts);
      if (r.value.errors?.length) throw new Error(`restore: ${r.value.errors.length} errors, first: ${r.value.errors[0].message}`);
      const got = await page.evaluate((n) => window.cairnBench.restoredBytes(n), name);
      await page.evaluate((n) => window.cairnBench.removeRestore(n), name);
      return { ...r, restored: got };
    },
    async zip(repo, snapshot, opts = {}) {
      const r = await timedCall(() => page.evaluate((s) => window.cairnBench.zip(s), snapshot), opts);
      if (r.value.errors?.length) throw new Error(`zip: ${r.value.errors.length} errors, first: ${r.value.errors[0].message}`);
      return { ...r, zipFiles: r.value.files };
    },
    /** Unlock: key derivation, config and index (the app's "open repository"). */
    async open(repo, opts = {}) {
      return timedCall(() => page.evaluate(({ loc, pw }) => window.cairnBench.open(loc, pw), { loc: repo.loc, pw: PASSWORD }), opts);
    },
    async check() {
      throw new Error('check --read-data is not part of the EngineApi');
    },
    supportsPhase: (phase) => phase !== 'check' && phase !== 'check-subset',
    /** For tests: selects a folder without backing it up; resolves the file count. */
    async pick(dir) {
      await page.setInputFiles('#src', dir, { timeout: 0 });
      return page.evaluate(() => document.getElementById('src').files.length);
    },
    consoleErrors,
    async close() {
      await context.close().catch(() => {});
      await server.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
  const targets = ['local'];
  if (s3) targets.push('s3');
  else if (cfg.targets.includes('s3')) unavailable.push('cairn in Chromium on S3: no radosgw');
  log(`chromium: bench page built and loaded (${server.url}); engine worker from workers/engine.worker.ts`);
  return { tool, targets, unavailable };
}
