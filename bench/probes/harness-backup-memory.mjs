#!/usr/bin/env node
// Measures a browser backup on the harness page: wall time, and the peak RSS of each kind of
// Chromium process (renderer = page + engine + file-saver workers; browser; utilities such as
// the storage and network services). Not a test; the numbers go into reports.
//
//   npx vite build --config test/e2e/harness/vite.config.ts
//   node bench/probes/harness-backup-memory.mjs <folder> [--workers N] [--repo opfs|s3 --s3-env env.json] [--runs 2]
//
// The folder is handed over as <input webkitdirectory> files (Playwright setInputFiles).

import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
const folder = path.resolve(args[0] ?? '');
const opt = (name, def) => (args.includes(name) ? args[args.indexOf(name) + 1] : def);
const workers = opt('--workers') ? Number(opt('--workers')) : undefined;
const runs = Number(opt('--runs', '2'));
const repoKind = opt('--repo', 'opfs');
if (!fs.existsSync(folder)) throw new Error('usage: measure-backup.mjs <folder> [--workers N] [--repo opfs|s3 --s3-env env.json]');

const PORT = 4179;
const MiB = 1 << 20;
const server = spawn('npx', ['vite', 'preview', '--config', 'test/e2e/harness/vite.config.ts', '--port', String(PORT), '--strictPort'], {
  cwd: repoRoot,
  stdio: 'ignore',
  detached: true,
});
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-measure-profile-'));

function kindOf(cmd) {
  const type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? 'browser';
  const sub = /--utility-sub-type=([\w.]+)/.exec(cmd)?.[1];
  return sub ? `utility:${sub.split('.')[0]}` : type;
}

const HZ = 100;
/** utime + stime of this profile's Chromium processes, in seconds (alive ones only). */
function cpuSeconds() {
  let cpu = 0;
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (!fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(profile)) continue;
      const st = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      cpu += (Number(f[11]) + Number(f[12])) / HZ;
    } catch {
      // exited
    }
  }
  return cpu;
}

function sample() {
  const out = {};
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!cmd.includes(profile)) continue;
      const rss = Number(fs.readFileSync(`/proc/${e}/statm`, 'utf8').split(' ')[1]) * 4096;
      const k = kindOf(cmd) + (process.env.MEASURE_PIDS ? `:${e}` : '');
      out[k] = (out[k] ?? 0) + rss;
    } catch {
      // exited
    }
  }
  return out;
}

async function waitForServer() {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://localhost:${PORT}/`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('vite preview did not start');
}

try {
  await waitForServer();
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const show = (label) => console.log(label, JSON.stringify(Object.fromEntries(Object.entries(sample()).map(([k, v]) => [k, Math.round(v / MiB)]))));
  show('blank page');
  if (process.env.MEASURE_CONSOLE) page.on('console', (m) => console.log('console:', m.text()));
  await page.goto(`http://localhost:${PORT}/`);
  await page.locator('#status').getByText('ready').waitFor();
  await page.evaluate(() => window.harness.engine.stats());
  show('harness loaded');
  let loc = { kind: 'opfs', name: 'measure' };
  if (repoKind === 's3') {
    const env = JSON.parse(fs.readFileSync(opt('--s3-env'), 'utf8'));
    loc = {
      kind: 's3',
      endpoint: env.endpoint,
      region: env.region,
      bucket: env.bucket,
      prefix: `measure-${Date.now()}`,
      pathStyle: true,
      auth: { type: 'keys', accessKeyId: env.accessKeyId, secretAccessKey: env.secretAccessKey },
    };
  }
  const tune = {
    workers,
    jobsPerWorker: opt('--jobs') ? Number(opt('--jobs')) : undefined,
    packSize: opt('--pack-mib') ? Number(opt('--pack-mib')) * MiB : undefined,
    sha256: opt('--sha256'),
  };
  await page.evaluate(
    async ({ loc, tune }) => {
      await window.harness.engine.tune(tune);
      await window.harness.engine.createRepository(loc, 'measure');
    },
    { loc, tune },
  );
  const baseline = sample();
  console.log('idle RSS MiB', Object.fromEntries(Object.entries(baseline).map(([k, v]) => [k, Math.round(v / MiB)])));
  for (let run = 1; run <= runs; run++) {
    await page.locator('#pick').setInputFiles(folder);
    const peak = {};
    const timer = setInterval(() => {
      for (const [k, v] of Object.entries(sample())) peak[k] = Math.max(peak[k] ?? 0, v);
    }, 250);
    const t0 = Date.now();
    const c0 = cpuSeconds();
    const r = await page.evaluate(async () => {
      const files = [...document.getElementById('pick').files];
      const res = await window.harness.engine.backup({ source: { kind: 'files', files, relativePaths: files.map((f) => f.webkitRelativePath) } });
      return {
        filesRead: res.filesRead,
        bytes: res.summary.totalBytesProcessed,
        added: res.summary.dataAdded,
        durationMs: res.durationMs,
        stats: await window.harness.engine.stats(),
      };
    });
    const wall = (Date.now() - t0) / 1000;
    const cpu = cpuSeconds() - c0;
    clearInterval(timer);
    const total = Object.values(peak).reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify({
        run,
        wallS: wall,
        mbPerS: +(r.bytes / 1e6 / wall).toFixed(1),
        cpuS: +cpu.toFixed(1),
        filesRead: r.filesRead,
        bytes: r.bytes,
        saverWorkers: r.stats.saverWorkers,
        peakRssMiB: Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, Math.round(v / MiB)])),
        peakSumMiB: Math.round(total / MiB),
      }),
    );
  }
  await context.close();
} finally {
  try {
    process.kill(-server.pid);
  } catch {
    // already gone
  }
  fs.rmSync(profile, { recursive: true, force: true });
}
