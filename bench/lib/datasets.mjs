// Datasets D1–D4: generated once per scale under BENCH_DATA/s<scale>/, then verified on every
// run against a manifest (per file: path, size, mtime and SHA-256; per dataset: one digest over
// those lines). bench/datasets.expected.json holds the digests this generator produced on the
// reference machine, so a fresh clone can tell whether its data is the same data.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { BENCH, SHARED_BENCH } from './config.mjs';
import { writeScaledGenerator } from './gen-scaled.mjs';

export const DATASET_DIRS = { d1: 'd1-mixed', d2: 'd2-small', d3: 'd3-bigdup', d4: 'd4-zero' };
export const DATASET_LABELS = { d1: 'D1 mixed', d2: 'D2 small files', d3: 'D3 big + edited copy', d4: 'D4 zeros' };
const MANIFEST = 'manifest.json';
const EXPECTED = path.join(BENCH, 'datasets.expected.json');

/** Files under dir, sorted by relative path (byte order), with their lstat. */
export function walkFiles(dir) {
  const out = [];
  const rec = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) rec(p, r);
      else if (e.isFile()) out.push({ rel: r, path: p, st: fs.statSync(p) });
    }
  };
  rec(dir, '');
  return out;
}

function countDirs(dir) {
  let n = 1;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) n += countDirs(path.join(dir, e.name));
  return n;
}

function sha256File(p) {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(p, 'r');
  const buf = Buffer.allocUnsafe(4 << 20);
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

/** Summary and digest of one dataset directory. mode 'full' hashes contents, 'quick' only metadata. */
export function describe(dir, mode = 'full') {
  const files = walkFiles(dir);
  const h = crypto.createHash('sha256');
  let bytes = 0;
  for (const f of files) {
    bytes += f.st.size;
    const content = mode === 'full' ? sha256File(f.path) : '-';
    h.update(`${f.rel}\t${f.st.size}\t${Math.floor(f.st.mtimeMs / 1000)}\t${content}\n`);
  }
  return { files: files.length, dirs: countDirs(dir), bytes, [mode === 'full' ? 'digest' : 'quickDigest']: h.digest('hex') };
}

function generate(cfg, ds, log) {
  fs.mkdirSync(cfg.dataDir, { recursive: true });
  const gen = path.join(SHARED_BENCH, 'gen.mjs');
  const script = cfg.scale === 1 ? gen : writeScaledGenerator(gen, cfg.scale, path.join(cfg.dataDir, '.gen-scaled.mjs'));
  log(`generating ${ds} at scale ${cfg.scale} with ${path.relative(process.cwd(), script)} ...`);
  const t = Date.now();
  const r = spawnSync(process.execPath, [script, cfg.dataDir, ds], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dataset generator failed for ${ds} (exit ${r.status})`);
  log(`  ${r.stdout.trim()} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

/** If a run died between mod.mjs modify and revert, put the originals back first. */
export function revertLeftovers(cfg, log) {
  if (!fs.existsSync(cfg.dataDir)) return;
  for (const e of fs.readdirSync(cfg.dataDir)) {
    if (!e.startsWith('.mod-')) continue;
    const save = path.join(cfg.dataDir, e);
    const ds = e.slice('.mod-'.length);
    if (fs.existsSync(path.join(save, '.list')) && DATASET_DIRS[ds]) {
      log(`reverting an interrupted 1 % change in ${ds}`);
      spawnSync(process.execPath, [path.join(SHARED_BENCH, 'mod.mjs'), 'revert', path.join(cfg.dataDir, DATASET_DIRS[ds]), save], { stdio: 'inherit' });
    }
    fs.rmSync(save, { recursive: true, force: true });
  }
}

/**
 * Makes sure every selected dataset exists and matches its manifest; (re)generates what is
 * missing or different. Returns { d1: { dir, files, dirs, bytes, digest }, ... }.
 */
export function ensureDatasets(cfg, wanted, log) {
  revertLeftovers(cfg, log);
  const manifestPath = path.join(cfg.dataDir, MANIFEST);
  const manifest = fs.existsSync(manifestPath) ? JSON.parse(fs.readFileSync(manifestPath, 'utf8')) : { scale: cfg.scale, datasets: {} };
  const expected = fs.existsSync(EXPECTED) ? JSON.parse(fs.readFileSync(EXPECTED, 'utf8'))[String(cfg.scale)] : undefined;
  const result = {};
  for (const ds of wanted) {
    const dir = path.join(cfg.dataDir, DATASET_DIRS[ds]);
    let entry = manifest.datasets[ds];
    let ok = false;
    if (entry && fs.existsSync(dir)) {
      const t = Date.now();
      const now = describe(dir, cfg.verify === 'quick' ? 'quick' : 'full');
      ok = cfg.verify === 'quick' ? now.quickDigest === entry.quickDigest : now.digest === entry.digest;
      log(`verified ${ds} (${cfg.verify}): ${ok ? 'ok' : 'MISMATCH'} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
    if (!ok) {
      generate(cfg, ds, log);
      entry = { ...describe(dir, 'full'), quickDigest: describe(dir, 'quick').quickDigest, generated: new Date().toISOString() };
      manifest.datasets[ds] = entry;
      fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 1));
    }
    const exp = expected?.[ds];
    const matchesReference = exp ? exp.digest === entry.digest : undefined;
    if (matchesReference === false)
      log(`WARNING: ${ds} differs from the reference data in bench/datasets.expected.json (different generator, Node or OpenSSL?)`);
    result[ds] = { dir, files: entry.files, dirs: entry.dirs, bytes: entry.bytes, digest: entry.digest, matchesReference };
  }
  return result;
}
