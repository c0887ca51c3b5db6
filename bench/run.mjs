// `npm run bench`: Cairn against restic 0.14, side by side, in one run (issue 5).
// Settings come from the environment (bench/lib/config.mjs, bench/README.md): BENCH_SCALE,
// BENCH_RUNS, BENCH_DATASETS, BENCH_TOOLS, BENCH_TARGETS, BENCH_PHASES, BENCH_SECTIONS, …
// Progress goes to stderr; the table to stdout; everything to bench/results/ (a file named by what it measures: lib/config.mjs resultName).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import { loadConfig, ROOT } from './lib/config.mjs';
import { ensureDatasets, walkFiles } from './lib/datasets.mjs';
import { machineInfo } from './lib/machine.mjs';
import { canDropCaches, waitForQuiet } from './lib/measure.mjs';
import { CairnNode, Restic } from './lib/tools.mjs';
import { startS3, s3ToolEnv } from './lib/s3.mjs';
import { runMacro } from './lib/macro.mjs';
import { evaluateGoals, renderMicro, renderTable, summarize } from './lib/report.mjs';
import { renderDedup, runDedup } from './lib/dedup.mjs';
import { renderProfile, runProfile } from './lib/profile.mjs';
import { nativeReferences } from './micro/native.mjs';
import { renderScale, runScale, summarizeScale } from './lib/scale.mjs';

if (process.env.BENCH_SECTIONS === 'big-repo') await import('./big-repo.mjs').then((m) => m.runBigRepo()).then(() => process.exit(0));
if (process.env.BENCH_SECTIONS === 'scale-app') await import('./scale/app.mjs').then((m) => m.runScaleApp()).then(() => process.exit(0));
const cfg = loadConfig();
const started = Date.now();
const log = (s) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${s}\n`);
const needDatasets = cfg.sections.some((s) => ['macro', 'dedup', 'profile'].includes(s)) || cfg.sections.includes('micro');
const dsWanted = [
  ...new Set([
    ...cfg.datasets,
    ...(cfg.sections.includes('dedup') ? ['d3'] : []),
    ...(cfg.sections.includes('profile') ? ['d1'] : []),
    ...(cfg.sections.includes('micro') ? ['d1'] : []),
  ]),
];

const result = {
  schema: 'cairn-bench/1',
  date: new Date().toISOString(),
  command: `npm run bench (${
    Object.entries(process.env)
      .filter(([k]) => k.startsWith('BENCH_'))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'defaults'
  })`,
  config: {
    scale: cfg.scale,
    runs: cfg.runs,
    datasets: cfg.datasets,
    tools: cfg.tools,
    targets: cfg.targets,
    phases: cfg.phases,
    sections: cfg.sections,
    verify: cfg.verify,
  },
  machine: machineInfo(cfg),
  unavailable: [],
};
const cleanups = [];
const cleanup = async () => {
  while (cleanups.length)
    await cleanups
      .pop()()
      .catch?.(() => {});
};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, async () => {
    log(`${sig}: stopping (radosgw, scratch)`);
    await cleanup();
    process.exit(130);
  });
}

function save(final = false) {
  fs.mkdirSync(path.dirname(cfg.out), { recursive: true });
  const file = final ? cfg.out : `${cfg.out}.tmp`;
  fs.writeFileSync(file, JSON.stringify(result, null, 1) + '\n');
  if (final) fs.rmSync(`${cfg.out}.tmp`, { force: true });
}

function checkDisk() {
  const need = { 1: 3.3e9 }[cfg.scale] ?? 3.3e9 * cfg.scale;
  const st = fs.statfsSync(fs.existsSync(cfg.dataRoot) ? cfg.dataRoot : ROOT);
  const free = st.bavail * st.bsize;
  // datasets (if not there yet) + two repositories of the largest dataset + a restore + radosgw
  const want = need + 5e9 * cfg.scale;
  log(`disk: ${(free / 1e9).toFixed(1)} GB free under ${cfg.dataRoot}, want ~${(want / 1e9).toFixed(1)} GB`);
  if (free < want) throw new Error(`not enough disk space: ${(free / 1e9).toFixed(1)} GB free, need ~${(want / 1e9).toFixed(1)} GB`);
}

/** D1's text files concatenated (the zstd text corpus), and random bytes, for the micro section. */
function microInputs(datasets, mib) {
  const dir = path.join(cfg.scratch, 'micro');
  fs.mkdirSync(dir, { recursive: true });
  const textFile = path.join(dir, 'text.bin');
  const randomFile = path.join(dir, 'random.bin');
  const want = mib << 20;
  const parts = [];
  let n = 0;
  for (const f of walkFiles(datasets.d1.dir)) {
    if (!/\.(js|log|json)$/.test(f.rel)) continue;
    parts.push(fs.readFileSync(f.path));
    n += f.st.size;
    if (n >= want) break;
  }
  fs.writeFileSync(textFile, Buffer.concat(parts).subarray(0, want));
  const fd = fs.openSync(randomFile, 'w');
  const c = createCipheriv('aes-256-ctr', Buffer.alloc(32, 9), Buffer.alloc(16));
  for (let i = 0; i < mib; i++) fs.writeSync(fd, c.update(Buffer.alloc(1 << 20)));
  fs.closeSync(fd);
  return { textFile, randomFile, textBytes: Math.min(n, want) };
}
async function runMicro(datasets) {
  const runs = Number(process.env.BENCH_MICRO_RUNS ?? 5);
  const mib = Number(process.env.BENCH_MICRO_MIB ?? 64);
  const { textFile, randomFile, textBytes } = microInputs(datasets, mib);
  const micro = {
    runs,
    mib,
    corpus: { text: `D1 text files concatenated (${(textBytes / 2 ** 20).toFixed(1)} MiB, repeated to ${mib} MiB if shorter)`, random: 'AES-CTR keystream' },
  };
  await waitForQuiet({ maxWait: Number(process.env.BENCH_QUIET_WAIT ?? 15) });
  log(`micro: Node (${mib} MiB × ${runs} runs per stage) ...`);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/micro/node.ts'), '--runs', String(runs), '--mib', String(mib), '--text', textFile, '--json'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (r.status !== 0) micro.node = { error: `exit ${r.status}` };
  else micro.node = JSON.parse(r.stdout.trim().split('\n').pop());
  if (cfg.tools.includes('chromium')) {
    log('micro: Chromium Web Worker ...');
    try {
      const { runBrowserMicro } = await import('./micro/browser.mjs');
      await waitForQuiet({ maxWait: Number(process.env.BENCH_QUIET_WAIT ?? 15) });
      micro.chromium = await runBrowserMicro({ chromium: cfg.chromium, runs, mib, textFile });
    } catch (e) {
      micro.chromium = { error: e.message.split('\n')[0] };
      log(`micro: Chromium failed: ${e.message}`);
    }
  }
  log('micro: native references (openssl speed, zstd -b3) ...');
  micro.native = nativeReferences({ randomFile, textFile });
  // The slowest per-byte stage of the backup path on incompressible data (most of D1's bytes):
  const pick = (name) => micro.node.results?.find((x) => x.stage.startsWith(name));
  const path_ = ['chunker scan', 'SHA-256', 'compressibility probe', 'AES-256-CTR', 'Poly1305'].map(pick).filter(Boolean);
  if (path_.length) {
    const slow = path_.reduce((a, b) => ((a.cpu ?? a.wall) < (b.cpu ?? b.wall) ? a : b));
    const serial = 1 / path_.reduce((a, s) => a + 1 / (s.cpu ?? s.wall), 0);
    micro.slowest = `${slow.stage} at ${(slow.cpu ?? slow.wall).toFixed(0)} MB/s; all five stages in series: ${serial.toFixed(0)} MB/s per core (×${os.cpus().length} cores = ${(serial * os.cpus().length).toFixed(0)} MB/s ceiling before I/O, copies and GC)`;
  }
  fs.rmSync(path.join(cfg.scratch, 'micro'), { recursive: true, force: true });
  return micro;
}

async function main() {
  log(`config: scale ${cfg.scale}, ${cfg.runs} runs, datasets ${cfg.datasets}, tools ${cfg.tools}, targets ${cfg.targets}, sections ${cfg.sections}`);
  fs.mkdirSync(cfg.scratch, { recursive: true });
  cleanups.push(async () => fs.rmSync(cfg.scratch, { recursive: true, force: true }));
  // Others rebuild dist/cli while working; run a private copy so one run measures one build.
  // The copy keeps the package's layout (bin/cairn runs ../dist/cli/cairn.mjs; see cairnCommand).
  const cli = path.join(cfg.scratch, 'cairn-cli');
  fs.rmSync(cli, { recursive: true, force: true });
  fs.cpSync(path.dirname(cfg.cairn), path.join(cli, 'dist/cli'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'bin'), path.join(cli, 'bin'), { recursive: true });
  cfg.cairn = path.join(cli, 'dist/cli/cairn.mjs');
  result.machine.cairnBundleSha256 = createHash('sha256')
    .update(fs.readFileSync(cfg.cairn))
    .update(fs.readFileSync(path.join(cli, 'dist/cli/file-saver-worker.mjs')))
    .digest('hex')
    .slice(0, 16);
  if (needDatasets) checkDisk();
  const datasets = needDatasets ? ensureDatasets(cfg, dsWanted, log) : {};
  result.datasets = Object.fromEntries(Object.entries(datasets).map(([k, v]) => [k, { ...v, dir: path.relative(ROOT, v.dir) }]));
  const drop = cfg.dropCaches === '0' ? false : canDropCaches();
  if (cfg.dropCaches === '1' && !drop) throw new Error('BENCH_DROP_CACHES=1 but /proc/sys/vm/drop_caches is not writable');
  cfg.dropCachesOk = drop;
  log(drop ? 'page cache: dropped before every timed command' : 'page cache: cannot drop it here, numbers are warm-cache');
  result.meta = { scale: cfg.scale, runs: cfg.runs, dropCaches: drop, date: result.date.slice(0, 10) };

  let s3;
  const s3env = {};
  if (cfg.sections.includes('macro') && cfg.targets.includes('s3')) {
    try {
      s3 = await startS3(cfg, log);
      cleanups.push(async () => s3.stop());
      Object.assign(s3env, s3ToolEnv(s3.env));
    } catch (e) {
      result.unavailable.push(`S3 column: radosgw did not start (${e.message})`);
      log(`S3: ${e.message}`);
    }
  }
  const restic = new Restic(cfg, s3env);
  const cairn = new CairnNode(cfg, s3env);
  const toolsByTarget = { local: [], s3: [] };
  for (const t of cfg.tools) {
    if (t === 'restic') toolsByTarget.local.push(restic);
    if (t === 'cairn') toolsByTarget.local.push(cairn);
  }
  if (s3) {
    if (cfg.tools.includes('restic')) toolsByTarget.s3.push(restic);
    if (cfg.tools.includes('cairn')) {
      const probeUrl = `s3:${s3.env.endpoint}/${s3.env.bucket}/probe-${Date.now().toString(36)}`;
      const sup = await cairn.s3Support(probeUrl);
      if (sup.ok) toolsByTarget.s3.push(cairn);
      else {
        result.unavailable.push(
          `cairn on S3: the CLI cannot open s3: repositories yet (cli/adapters/s3.ts: "${sup.reason}"); the column runs as soon as it can`,
        );
        log(`S3: cairn not available: ${sup.reason}`);
      }
    }
  }
  if (cfg.tools.includes('chromium')) {
    const { chromiumTool } = await import('./browser/tool.mjs');
    const b = await chromiumTool(cfg, { s3: s3?.env, log });
    if (b.tool) {
      for (const t of b.targets) toolsByTarget[t]?.push(b.tool);
      cleanups.push(async () => b.tool.close());
    }
    for (const u of b.unavailable) result.unavailable.push(u);
  }

  result.macro = { rows: [] };
  if (cfg.sections.includes('macro')) {
    const quietWait = Number(process.env.BENCH_QUIET_WAIT ?? 15);
    await runMacro(cfg, {
      datasets,
      toolsByTarget,
      s3,
      drop,
      log,
      quietWait,
      record: (row) => {
        result.macro.rows.push(row);
        save();
      },
    });
  }
  result.macro.cells = summarize(result.macro.rows);
  result.goals = evaluateGoals(result.macro.cells);
  save();

  if (cfg.sections.includes('dedup') && cfg.tools.includes('restic') && cfg.tools.includes('cairn')) {
    try {
      result.dedup = await runDedup(cfg, { datasets, restic, cairn, log });
    } catch (e) {
      result.dedup = { error: e.message };
      log(`dedup failed: ${e.message}`);
    }
    save();
  }
  if (cfg.sections.includes('micro')) {
    result.micro = await runMicro(datasets);
    save();
  }
  if (cfg.sections.includes('profile') && cfg.tools.includes('cairn')) {
    try {
      result.profile = await runProfile(cfg, { datasets, cairn, log });
    } catch (e) {
      result.profile = { error: e.message };
      log(`profile failed: ${e.message}`);
    }
    save();
  }
  if (cfg.sections.includes('scale')) {
    const rows = [];
    try {
      result.scale = { rows };
      const info = await runScale(cfg, {
        drop,
        log,
        quietWait: Number(process.env.BENCH_QUIET_WAIT ?? 15),
        record: (row) => {
          rows.push(row);
          result.scale.cells = summarizeScale(rows);
          save();
        },
      });
      result.scale = { ...info, rows, cells: summarizeScale(rows) };
    } catch (e) {
      result.scale = { error: e.message, rows };
      log(`scale failed: ${e.stack ?? e}`);
    }
    save();
  }
  result.durationS = Math.round((Date.now() - started) / 1000);
  const text =
    (cfg.sections.includes('macro')
      ? renderTable({ cells: result.macro.cells, machine: result.machine, datasets, meta: result.meta, goals: result.goals, unavailable: result.unavailable }) +
        '\n'
      : '') +
    renderDedup(result.dedup) +
    '\n' +
    renderMicro(result.micro) +
    '\n' +
    renderProfile(result.profile) +
    '\n' +
    renderScale(result.scale);
  result.table = text;
  save(true);
  process.stdout.write('\n' + text);
  log(`results: ${path.relative(process.cwd(), cfg.out)} (${result.durationS} s)`);
}

try {
  await main();
} catch (e) {
  log(`FAILED: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
