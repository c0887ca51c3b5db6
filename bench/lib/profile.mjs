// Where cairn's time goes: a V8 CPU profile of `cairn backup` of D1 (main thread and every
// file-saver worker thread) and of `cairn restore`, summarised as self time per function and per
// pipeline stage. Plus one experiment the micro numbers pointed at: the same backup with glibc
// malloc told to keep freed memory (fresh pages are expensive on this VM; see the report).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './config.mjs';
import { timed, dropCaches } from './measure.mjs';
import { PASSWORD, warm } from './tools.mjs';

// ---- source maps (the CLI bundles carry them): generated line/column → original file:line ----
const B64 = Object.fromEntries([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]));
const maps = new Map();

function decodeMap(file) {
  const m = JSON.parse(fs.readFileSync(file, 'utf8'));
  const lines = [];
  let src = 0;
  let oline = 0;
  let ocol = 0;
  for (const line of m.mappings.split(';')) {
    const segs = [];
    let gcol = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const vals = [];
      let v = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = B64[ch];
        v += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          vals.push(v & 1 ? -(v >>> 1) : v >>> 1);
          v = 0;
          shift = 0;
        }
      }
      gcol += vals[0];
      if (vals.length >= 4) {
        src += vals[1];
        oline += vals[2];
        // eslint-disable-next-line @typescript-eslint/no-unused-vars -- VLQ state: every field is relative to its last value
        ocol += vals[3];
        segs.push([gcol, src, oline]);
      }
    }
    lines.push(segs);
  }
  // Source paths are relative to dist/cli/ (the benchmark may run a copy of the bundle elsewhere).
  return { sources: m.sources.map((x) => path.normalize(path.join(ROOT, 'dist/cli', x))), lines };
}

/** Original "core/…/file.ts:line" of a bundle position, or undefined. */
function original(url, line, col) {
  if (!url.startsWith('file://') || !url.endsWith('.mjs')) return undefined;
  const file = url.slice('file://'.length) + '.map';
  if (!maps.has(file)) maps.set(file, fs.existsSync(file) ? decodeMap(file) : null);
  const m = maps.get(file);
  const segs = m?.lines[line];
  if (!segs?.length) return undefined;
  let best = segs[0];
  for (const s of segs) if (s[0] <= col) best = s;
  return `${path.relative(ROOT, m.sources[best[1]])}:${best[2] + 1}`;
}

const FILE_IO =
  /^(read|write|open|close|lstat|stat|fstat|readdir|opendir|openFileHandle|readFileHandle|writeFileHandle|realpath|utimes|mkdir|rename|unlink|fsync|fdatasync)$/;

/**
 * The pipeline stage a sample belongs to: by the function itself, or for WASM and native code
 * by the nearest JavaScript caller (the chunker's scan, poly1305, zstd's compress…).
 */
function stageOf(node, parentOf, byId) {
  const { functionName: fn, url } = node.callFrame;
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8 (program)';
  if (url.startsWith('wasm://')) {
    for (let p = byId.get(parentOf.get(node.id)); p; p = byId.get(parentOf.get(p.id))) {
      const f = p.callFrame.functionName;
      if (/scan|chunk/i.test(f)) return 'chunker (WASM)';
      if (/poly1305/i.test(f)) return 'Poly1305 (WASM)';
      if (/compress|looksCompressible/i.test(f)) return 'zstd (WASM)';
      // skip V8's JS-to-WASM wrappers and other native frames
      if (!p.callFrame.url.startsWith('wasm://') && p.callFrame.url !== '') return `WASM called from ${f}`;
    }
    return 'WASM';
  }
  if (url === 'node:internal/crypto/cipher' || /Cipheriv/.test(fn)) return 'AES-CTR (node:crypto)';
  if (url === 'node:internal/crypto/hash') return 'SHA-256 (node:crypto)';
  if (url === '' && FILE_IO.test(fn)) return 'file I/O syscalls';
  if (url === '' && /postMessage|drainMessagePort/.test(fn)) return 'thread messaging';
  if (url.startsWith('node:internal/fs') || url === 'node:fs') return 'file I/O (node:fs JS)';
  if (url.startsWith('node:internal/worker') || url.startsWith('node:internal/per_context/messageport')) return 'thread messaging';
  if ((url.startsWith('node:') && /bootstrap|modules|pre_execution|realm|main\//.test(url)) || /^compile/.test(fn)) return 'start-up (module loading)';
  if (url.startsWith('node:')) return `node (${url.replace(/^node:(internal\/)?/, '')})`;
  if (url === '') return `native ${fn}`;
  const orig = original(url, node.callFrame.lineNumber, node.callFrame.columnNumber);
  return orig ? `cairn ${orig.replace(/:\d+$/, '')}` : 'cairn (bundle)';
}

export function summarizeProfile(file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const self = new Map();
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1e3; // ms, attributed to the sample before it
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
  }
  const fns = new Map();
  const stages = new Map();
  let total = 0;
  for (const [id, ms] of self) {
    const n = byId.get(id);
    const { functionName, url, lineNumber, columnNumber } = n.callFrame;
    const fn = functionName || '(anonymous)';
    const where = original(url, lineNumber, columnNumber) ?? (url ? `${url.replace(/^node:internal\//, 'node:')}` : '');
    const key = `${fn}${where ? ` ${where}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
    const st = stageOf(n, parentOf, byId);
    stages.set(st, (stages.get(st) ?? 0) + ms);
    total += ms;
  }
  const idle = stages.get('idle') ?? 0;
  const busy = total - idle;
  fns.delete('(idle)');
  stages.delete('idle');
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), pctBusy: +((100 * ms) / busy).toFixed(1) }));
  return {
    file: path.basename(file),
    totalMs: Math.round(total),
    busyMs: Math.round(busy),
    idleMs: Math.round(idle),
    stages: top(stages, 25),
    functions: top(fns, 20),
  };
}

export async function runProfile(cfg, { datasets, cairn, log }) {
  // Kept after the run (BENCH_DATA/profiles/, gitignored) for chrome://inspect or speedscope.
  const dir = path.join(cfg.dataRoot, 'profiles', `s${cfg.scale}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const d1 = datasets.d1;
  const repo = { url: path.join(cfg.scratch, 'profile-repo') };
  fs.rmSync(repo.url, { recursive: true, force: true });
  await cairn.init(repo);
  const env = { ...process.env, RESTIC_PASSWORD: PASSWORD, BENCH_CAIRN_CLI: cairn.cfg.cairn };
  const launch = path.join(ROOT, 'bench/lib/profile-launch.mjs');
  const out = {};
  try {
    for (const [what, args] of [
      ['backup', ['-r', repo.url, 'backup', d1.dir, '--json', '-q', '--host', 'bench']],
      ['restore', ['-r', repo.url, 'restore', 'latest', '--target', path.join(cfg.scratch, 'profile-restore'), '-q']],
    ]) {
      const pdir = path.join(dir, what);
      fs.mkdirSync(pdir, { recursive: true });
      if (cfg.dropCachesOk) await dropCaches();
      warm(cairn.warmFiles());
      const r = await timed(process.execPath, ['--cpu-prof', '--cpu-prof-dir', pdir, launch, pdir, ...args], { env });
      if (r.code !== 0) throw new Error(`profiled cairn ${what} failed: ${r.stderr.slice(-400)}`);
      const threads = fs
        .readdirSync(pdir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort()
        .map((f) => summarizeProfile(path.join(pdir, f)));
      // The main thread is thread id 0 in the file name CPU.<date>.<time>.<pid>.<tid>.<seq>.
      for (const t of threads) t.thread = /\.\d+\.0\.\d+\.cpuprofile$/.test(t.file) ? 'main' : 'worker';
      out[what] = { wall: r.wall, cpu: (r.user ?? 0) + (r.sys ?? 0), mbps: d1.bytes / 1e6 / r.wall, threads, combined: combine(threads) };
      log(
        `profile ${what}: ${r.wall.toFixed(1)} s wall (profiler on), ${threads.length} thread profiles; top stages: ${out[what].combined
          .slice(0, 5)
          .map((s) => `${s.name} ${s.pctBusy}%`)
          .join(', ')}`,
      );
      fs.rmSync(path.join(cfg.scratch, 'profile-restore'), { recursive: true, force: true });
    }
    out.malloc = await mallocExperiment(cfg, { d1, cairn, env, log });
  } finally {
    fs.rmSync(repo.url, { recursive: true, force: true });
  }
  out.dir = dir;
  return out;
}

/** Busy time per stage summed over threads, as a share of all busy time. */
function combine(threads) {
  const m = new Map();
  let busy = 0;
  for (const t of threads) {
    busy += t.busyMs;
    for (const s of t.stages) if (s.name !== 'idle') m.set(s.name, (m.get(s.name) ?? 0) + s.ms);
  }
  return [...m].sort((a, b) => b[1] - a[1]).map(([name, ms]) => ({ name, ms, pctBusy: +((100 * ms) / busy).toFixed(1) }));
}

/**
 * The same D1 first backup with glibc's defaults and with malloc keeping freed memory
 * (MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_/MALLOC_TOP_PAD_), alternating, page cache
 * dropped each time. If fresh pages are what costs, the tuned run is faster at the same CPU.
 */
async function mallocExperiment(cfg, { d1, cairn, env, log }) {
  const tuned = { MALLOC_MMAP_THRESHOLD_: String(64 << 20), MALLOC_TRIM_THRESHOLD_: String(1 << 30), MALLOC_TOP_PAD_: String(256 << 20) };
  const runs = { default: [], tuned: [] };
  const repo = path.join(cfg.scratch, 'malloc-repo');
  for (let i = 0; i < 2; i++) {
    for (const variant of i % 2 === 0 ? ['default', 'tuned'] : ['tuned', 'default']) {
      fs.rmSync(repo, { recursive: true, force: true });
      await cairn.init({ url: repo });
      if (cfg.dropCachesOk) await dropCaches();
      warm(cairn.warmFiles());
      const r = await timed(process.execPath, [cairn.cfg.cairn, '-r', repo, 'backup', d1.dir, '--json', '-q', '--host', 'bench'], {
        env: variant === 'tuned' ? { ...env, ...tuned } : env,
      });
      if (r.code !== 0) throw new Error(`malloc experiment backup failed: ${r.stderr.slice(-300)}`);
      runs[variant].push({ wall: r.wall, cpu: r.user + r.sys, sys: r.sys, peakRss: r.peakRss, mbps: d1.bytes / 1e6 / r.wall });
    }
  }
  fs.rmSync(repo, { recursive: true, force: true });
  const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const summary = Object.fromEntries(
    Object.entries(runs).map(([k, v]) => [
      k,
      { mbps: med(v.map((x) => x.mbps)), cpu: med(v.map((x) => x.cpu)), sys: med(v.map((x) => x.sys)), peakRssMiB: med(v.map((x) => x.peakRss)) / 2 ** 20 },
    ]),
  );
  log(
    `malloc experiment (D1 first backup): default ${summary.default.mbps.toFixed(0)} MB/s (sys ${summary.default.sys.toFixed(1)} s), tuned ${summary.tuned.mbps.toFixed(0)} MB/s (sys ${summary.tuned.sys.toFixed(1)} s)`,
  );
  return { env: tuned, runs, summary };
}

export function renderProfile(p) {
  if (!p) return '';
  if (p.error) return `\nProfile: FAILED: ${p.error}`;
  const lines = ['', 'Profile of cairn (node --cpu-prof, main + worker threads; share of busy CPU time):'];
  for (const what of ['backup', 'restore']) {
    const x = p[what];
    if (!x) continue;
    lines.push(`  ${what} D1: ${x.wall.toFixed(1)} s wall with the profiler on, ${x.cpu.toFixed(1)} s CPU, ${x.threads.length} threads`);
    lines.push(
      `    stages: ${x.combined
        .slice(0, 8)
        .map((s) => `${s.name} ${s.pctBusy}%`)
        .join(' · ')}`,
    );
    const w = x.threads.filter((t) => t.thread === 'worker');
    const fns = new Map();
    for (const t of w.length ? w : x.threads) for (const f of t.functions) fns.set(f.name, (fns.get(f.name) ?? 0) + f.ms);
    const busy = (w.length ? w : x.threads).reduce((a, t) => a + t.busyMs, 0);
    lines.push(
      `    top functions (${w.length ? 'workers' : 'main'}): ${[...fns]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([n, ms]) => `${n} ${((100 * ms) / busy).toFixed(1)}%`)
        .join(' · ')}`,
    );
  }
  if (p.malloc) {
    const s = p.malloc.summary;
    lines.push(
      `  malloc experiment, D1 first backup: glibc defaults ${s.default.mbps.toFixed(0)} MB/s (CPU ${s.default.cpu.toFixed(1)} s, sys ${s.default.sys.toFixed(1)} s) vs freed memory kept ${s.tuned.mbps.toFixed(0)} MB/s (CPU ${s.tuned.cpu.toFixed(1)} s, sys ${s.tuned.sys.toFixed(1)} s)`,
    );
  }
  return lines.join('\n');
}
