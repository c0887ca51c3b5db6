// Benchmark settings, all from the environment so `npm run bench` needs no arguments.
//   BENCH_SCALE     dataset scale: 1 = the real D1–D4 from ../shared/bench/gen.mjs; 0.1 etc. = a
//                   smaller deterministic variant (lib/gen-scaled.mjs)            default 1
//   BENCH_RUNS      repetitions per cell (median, min, max)                         default 3
//   BENCH_DATASETS  comma list of d1,d2,d3,d4                                      default all
//   BENCH_TOOLS     comma list of restic,cairn,chromium                            default all
//   BENCH_TARGETS   comma list of local,s3                                          default all
//   BENCH_PHASES    comma list of open,backup,unchanged,changed,restore,check,check-subset,prune  default all
//   BENCH_SECTIONS  comma list of macro,micro,dedup,profile,scale    default all but scale
//   BENCH_SCALE_FILES, BENCH_SCALE_HOME_FILES, BENCH_SCALE_TREES, BENCH_SCALE_PHASES,
//   BENCH_SCALE_DIR  the scale section (lib/scale.mjs)
//   BENCH_DATA      where datasets (and scratch repositories) live        default bench/data
//   BENCH_DROP_CACHES  1/0: drop the page cache before each timed command  default: if allowed
//   BENCH_VERIFY    full (hash every file) | quick (names, sizes, mtimes)          default full
//   BENCH_OUT       result file                      default bench/results/<what it measures>-<date>.json (resultName)
//   BENCH_S3_DIR    reuse a running radosgw (its directory from scripts/s3/start.sh)
//   BENCH_CHROMIUM  path of the Chromium binary                         default /usr/bin/chromium
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BENCH = path.join(ROOT, 'bench');
export const SHARED_BENCH = process.env.BENCH_SHARED ?? path.resolve(ROOT, '../shared/bench');

const list = (name, all, dflt = all) => {
  const v = process.env[name];
  if (!v) return dflt;
  const got = v
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = got.filter((g) => !all.includes(g));
  if (bad.length) throw new Error(`${name}: unknown ${bad.join(', ')} (choose from ${all.join(', ')})`);
  return got;
};

export const DATASETS = ['d1', 'd2', 'd3', 'd4'];
export const TOOLS = ['restic', 'cairn', 'chromium'];
export const TARGETS = ['local', 's3'];
export const PHASES = ['open', 'backup', 'unchanged', 'changed', 'restore', 'zip', 'check', 'check-subset', 'prune'];
export const SECTIONS = ['macro', 'micro', 'dedup', 'profile', 'scale'];
/** What runs without BENCH_SECTIONS: the scale section takes an hour or more at its default size. */
const DEFAULT_SECTIONS = ['macro', 'micro', 'dedup', 'profile'];

/**
 * A result file's name says what it measures: phases (`all-phases` for all), extra sections,
 * datasets, tools, targets, the scale when not 1 (git ignores those: ../.gitignore), the date.
 * A variant the configuration does not show (a knob, a build) goes into BENCH_OUT by hand,
 * after the tools: `backup-d2-chromium-handle-local-2026-11-30.json`.
 */
export function resultName(c, date) {
  const phases = c.phases.length === PHASES.length ? ['all-phases'] : c.phases;
  const sections = c.sections.filter((s) => s !== 'macro');
  const scale = c.scale === 1 ? [] : [`s${c.scale}`];
  return [...phases, ...sections, ...c.datasets, ...c.tools, ...c.targets, ...scale, date].join('-') + '.json';
}

export function loadConfig() {
  const scale = Number(process.env.BENCH_SCALE ?? '1');
  if (!(scale > 0 && scale <= 1)) throw new Error(`BENCH_SCALE must be in (0, 1], got ${process.env.BENCH_SCALE}`);
  const runs = Number(process.env.BENCH_RUNS ?? '3');
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`BENCH_RUNS must be a positive integer`);
  const dataRoot = path.resolve(process.env.BENCH_DATA ?? path.join(BENCH, 'data'));
  const date = new Date().toISOString().slice(0, 10);
  const sections = list('BENCH_SECTIONS', SECTIONS, DEFAULT_SECTIONS);
  const onlyScale = sections.length === 1 && sections[0] === 'scale';
  const measured = {
    scale,
    datasets: list('BENCH_DATASETS', DATASETS),
    tools: list('BENCH_TOOLS', TOOLS),
    targets: list('BENCH_TARGETS', TARGETS),
    phases: list('BENCH_PHASES', PHASES),
    sections,
  };
  return {
    ...measured,
    runs,
    dataRoot,
    dataDir: path.join(dataRoot, `s${scale}`),
    scratch: path.join(dataRoot, 'scratch'),
    dropCaches: process.env.BENCH_DROP_CACHES,
    verify: process.env.BENCH_VERIFY ?? 'full',
    out: path.resolve(
      process.env.BENCH_OUT ??
        path.join(BENCH, 'results', onlyScale ? `scale-${process.env.BENCH_SCALE_FILES ?? 1_000_000}-files-${date}.json` : resultName(measured, date)),
    ),
    s3Dir: process.env.BENCH_S3_DIR,
    chromium: process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium',
    restic: process.env.BENCH_RESTIC ?? '/usr/bin/restic',
    // BENCH_CAIRN_TEST_KDF=1 needs the CLI's test bundle: the shipped one reads no CAIRN_TEST_KDF.
    cairn: path.join(ROOT, process.env.BENCH_CAIRN_TEST_KDF === '1' ? 'dist/cli-test/cairn.mjs' : 'dist/cli/cairn.mjs'),
  };
}
