// `BENCH_SECTIONS=big-repo npm run bench`: a synthetic repository of ~10 M blobs and 1 000
// snapshots (bench/big-repo/generate.ts writes it directly with the engine's writers), checked
// by restic, then opened, listed, searched and restored from by restic 0.14 and cairn, side by
// side: wall, CPU, peak RSS per command (bench/README.md, "Big repository").
//   BENCH_BIGREPO_SIZE   1m (100 snapshots, ~1.06 M blobs) | 10m (1 000 snapshots, ~9.9 M blobs)  default 10m
//   BENCH_BIGREPO_OPS    open,snapshots,find,restore                                           default all
//   BENCH_BIGREPO_CHECK  1: run `restic check` again on an existing repository                 default: once, after generating
//   BENCH_BIGREPO_BASE   a directory holding another build of the CLI (a copy of dist/cli): a third column, `cairn-base`
//   BENCH_RUNS, BENCH_DATA, BENCH_DROP_CACHES, BENCH_QUIET_WAIT, BENCH_OUT, BENCH_RESTIC as in run.mjs
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BENCH, ROOT } from './lib/config.mjs';
import { canDropCaches, timed, waitForQuiet, dirBytes } from './lib/measure.mjs';
import { cairnCommand, warm, PASSWORD } from './lib/tools.mjs';

const SIZES = {
  '1m': { snapshots: 100 },
  '10m': { snapshots: 1000 },
};
const LAYOUT = { top: 10, leaves: 15, files: 20, blobs: 32.5, seed: 1 };
const OPS = ['open', 'snapshots', 'find', 'restore'];
/** A name every snapshot holds (found 1 000 times at 10m), and a file restored from the latest. */
const FIND_NAME = 'file-00003.txt';
const RESTORE_PATH = '/data/top-00/dir-000/file-00003.txt';

const started = Date.now();
const log = (s) => process.stderr.write(`[big-repo ${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s] ${s}\n`);
const size = process.env.BENCH_BIGREPO_SIZE ?? '10m';
if (!SIZES[size]) throw new Error(`BENCH_BIGREPO_SIZE: ${size} (choose from ${Object.keys(SIZES)})`);
const ops = (process.env.BENCH_BIGREPO_OPS ?? OPS.join(',')).split(',');
for (const o of ops) if (!OPS.includes(o)) throw new Error(`BENCH_BIGREPO_OPS: unknown ${o}`);
const runs = Number(process.env.BENCH_RUNS ?? '3');
const quietWait = Number(process.env.BENCH_QUIET_WAIT ?? 15);
const dataRoot = path.resolve(process.env.BENCH_DATA ?? path.join(BENCH, 'data'));
const params = { ...LAYOUT, ...SIZES[size] };
const home = path.join(dataRoot, 'big-repo', `${size}-s${params.snapshots}-t${params.top}-l${params.leaves}-f${params.files}-b${params.blobs}`);
const repo = path.join(home, 'repo');
const marker = path.join(home, 'generated.json');
const scratch = path.join(home, 'scratch');
// The CLI's copy must sit inside the project, where its bundles find node_modules (zstd's WASM).
const cliCopy = path.join(BENCH, 'data', 'big-repo-cli', String(process.pid));
const date = new Date().toISOString().slice(0, 10);
const out = path.resolve(process.env.BENCH_OUT ?? path.join(BENCH, 'results', `${date}-big-repo-${size}.json`));
const restic = process.env.BENCH_RESTIC ?? '/usr/bin/restic';
const cairn = path.join(cliCopy, 'cairn.mjs');
const env = { ...process.env, RESTIC_PASSWORD: PASSWORD };

const nodeTool = (dir) => {
  const [cmd, ...pre] = cairnCommand(path.join(dir, 'cairn.mjs'));
  return { cmd, pre, warm: [process.execPath, ...fs.readdirSync(dir).map((f) => path.join(dir, f))] };
};
const base = process.env.BENCH_BIGREPO_BASE && path.resolve(process.env.BENCH_BIGREPO_BASE);
const tools = {
  restic: { cmd: restic, pre: ['--no-cache'], warm: [restic] },
  cairn: nodeTool(path.join(ROOT, 'dist/cli')),
  ...(base ? { 'cairn-base': nodeTool(base) } : {}),
};

/** Arguments of each timed command after `-r repo`; `check(r)` says whether its output is right. */
const commands = {
  open: { args: () => ['cat', 'config'], check: (r) => r.stdout.includes('"chunker_polynomial"') },
  snapshots: { args: () => ['snapshots'], check: (r) => r.stdout.includes(`${params.snapshots} snapshots`) },
  find: { args: () => ['find', FIND_NAME], check: (r) => r.stdout.split(FIND_NAME).length - 1 === params.snapshots },
  restore: {
    args: (target) => ['restore', 'latest', '--target', target, '--include', RESTORE_PATH],
    check: (_r, target) => fs.statSync(path.join(target, RESTORE_PATH), { throwIfNoEntry: false })?.isFile() === true,
  },
};

const mib = (b) => (b / 2 ** 20).toFixed(0);

async function measure(tool, label, args, drop) {
  const t = tools[tool];
  const q = quietWait > 0 ? await waitForQuiet({ maxWait: quietWait }) : undefined;
  const r = await timed(t.cmd, [...t.pre, '-r', repo, ...args], { env, dropCache: drop, beforeStart: () => drop && warm(t.warm) });
  const row = {
    tool,
    op: label,
    code: r.code,
    wallS: +r.wall.toFixed(2),
    cpuS: r.user === undefined ? undefined : +(r.user + r.sys).toFixed(2),
    peakRssMiB: +(r.peakRss / 2 ** 20).toFixed(1),
    bgCores: r.background === undefined ? undefined : +(r.background / r.wall).toFixed(2),
    quietBefore: q && +q.busy.toFixed(2),
  };
  log(`${tool} ${label}: ${row.wallS} s wall, ${row.cpuS} s CPU, ${mib(r.peakRss)} MiB peak (exit ${r.code})`);
  return { row, r };
}

async function generate(result) {
  if (fs.existsSync(marker)) {
    Object.assign(result, JSON.parse(fs.readFileSync(marker, 'utf8')));
    log(`repository: ${repo} (generated before: ${result.generate.totalBlobs} blobs, ${result.generate.snapshots} snapshots)`);
    return;
  }
  fs.rmSync(home, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  // A larger young generation: the generator makes millions of short-lived IDs and blob records.
  const args = ['--max-semi-space-size=64', '--import', 'tsx', path.join(BENCH, 'big-repo/generate.ts'), '--repo', repo, '--password', PASSWORD];
  for (const [k, v] of Object.entries(params)) args.push(`--${k}`, String(v));
  log(`generating ${repo} (${JSON.stringify(params)}) ...`);
  const r = await timed(process.execPath, args, { cwd: ROOT, env: process.env });
  if (r.code !== 0) throw new Error(`generate failed (${r.code}): ${r.stderr.slice(-2000)}`);
  result.generate = {
    ...JSON.parse(r.stdout.trim().split('\n').pop()),
    wallS: +r.wall.toFixed(1),
    cpuS: +(r.user + r.sys).toFixed(1),
    peakRssMiB: +(r.peakRss / 2 ** 20).toFixed(0),
  };
  result.repository = { ...dirBytes(repo), byDir: Object.fromEntries(['data', 'index', 'snapshots'].map((d) => [d, dirBytes(path.join(repo, d)).bytes])) };
  log(
    `generated: ${result.generate.totalBlobs} blobs, ${result.generate.packs} packs, ${result.generate.indexFiles} index files, ${(result.repository.bytes / 1e9).toFixed(2)} GB in ${result.generate.wallS} s`,
  );
  fs.writeFileSync(marker, JSON.stringify({ generate: result.generate, repository: result.repository }, null, 1));
}

async function resticCheck(result) {
  if (result.check && process.env.BENCH_BIGREPO_CHECK !== '1') return;
  log('restic check ...');
  const { row, r } = await measure('restic', 'check', ['check'], false);
  result.check = { ...row, ok: r.code === 0 && /no errors were found/.test(r.stdout), tail: r.stdout.trim().split('\n').slice(-3) };
  if (!result.check.ok) log(`restic check FAILED:\n${r.stdout}\n${r.stderr}`);
  const saved = JSON.parse(fs.readFileSync(marker, 'utf8'));
  fs.writeFileSync(marker, JSON.stringify({ ...saved, check: result.check }, null, 1));
}

function table(rows) {
  const med = (xs) => {
    const s = xs.filter((x) => x !== undefined).sort((a, b) => a - b);
    return s.length ? s[(s.length - 1) >> 1] : undefined;
  };
  const cells = {};
  for (const r of rows) ((cells[r.op] ??= {})[r.tool] ??= []).push(r);
  const names = Object.keys(tools);
  const others = names.filter((t) => t !== 'restic');
  const lines = [
    `| op | ${names.map((t) => `${t} wall s / CPU s / peak MiB`).join(' | ')} | ${others.map((t) => `${t} ÷ restic (wall, CPU, RSS)`).join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}${others.map(() => '---|').join('')}`,
  ];
  const summary = {};
  for (const op of ops) {
    const m = {};
    for (const tool of names) {
      const rs = cells[op]?.[tool] ?? [];
      m[tool] = { wallS: med(rs.map((x) => x.wallS)), cpuS: med(rs.map((x) => x.cpuS)), peakRssMiB: med(rs.map((x) => x.peakRssMiB)), runs: rs.length };
    }
    summary[op] = m;
    const f = (x) => (x.runs ? `${x.wallS} / ${x.cpuS} / ${x.peakRssMiB.toFixed(0)}` : '—');
    const ratio = (t, k) => (m.restic[k] && m[t][k] ? (m[t][k] / m.restic[k]).toFixed(2) : '—');
    const row = [...names.map((t) => f(m[t])), ...others.map((t) => ['wallS', 'cpuS', 'peakRssMiB'].map((k) => ratio(t, k)).join(', '))];
    lines.push(`| ${op} | ${row.join(' | ')} |`);
  }
  return { text: lines.join('\n'), summary };
}

export async function runBigRepo() {
  const result = {
    schema: 'cairn-bench-big-repo/1',
    date: new Date().toISOString(),
    command: `BENCH_SECTIONS=big-repo npm run bench (${Object.entries(process.env)
      .filter(([k]) => k.startsWith('BENCH_'))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')})`,
    params,
    find: FIND_NAME,
    restore: RESTORE_PATH,
    restic: spawnSync(restic, ['version'], { encoding: 'utf8' }).stdout.trim(),
  };
  await generate(result);
  // Others rebuild dist/cli while working; one run measures one build.
  fs.mkdirSync(scratch, { recursive: true });
  fs.cpSync(path.join(ROOT, 'dist/cli'), cliCopy, { recursive: true });
  tools.cairn = nodeTool(cliCopy);
  process.on('exit', () => fs.rmSync(cliCopy, { recursive: true, force: true }));
  result.cairn = spawnSync(process.execPath, [cairn, 'version'], { encoding: 'utf8' }).stdout.trim();
  if (base) result.cairnBase = base;
  await resticCheck(result);
  const drop = process.env.BENCH_DROP_CACHES === '0' ? false : canDropCaches();
  result.dropCaches = drop;
  log(drop ? 'page cache: dropped before every timed command' : 'page cache: not dropped (warm-cache numbers)');
  result.rows = [];
  for (let run = 0; run < runs; run++) {
    const order = run % 2 ? Object.keys(tools).reverse() : Object.keys(tools);
    for (const op of ops) {
      for (const tool of order) {
        const target = path.join(scratch, `restore-${tool}`);
        fs.rmSync(target, { recursive: true, force: true });
        const { row, r } = await measure(tool, op, commands[op].args(target), drop);
        row.run = run;
        row.ok = r.code === 0 && commands[op].check(r, target);
        if (!row.ok) log(`${tool} ${op}: unexpected result (exit ${r.code}): ${r.stdout.slice(0, 300)} ${r.stderr.slice(-500)}`);
        result.rows.push(row);
        fs.rmSync(target, { recursive: true, force: true });
      }
    }
  }
  const t = table(result.rows);
  result.summary = t.summary;
  result.table = t.text;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  const g = result.generate;
  process.stdout.write(
    `\nbig repository (${size}): ${g.totalBlobs} blobs (${g.dataBlobs} data, ${g.treeBlobs} tree), ${g.snapshots} snapshots, ${g.indexFiles} index files, ${(result.repository.bytes / 1e9).toFixed(2)} GB; ` +
      `restic check: ${result.check?.ok ? 'ok' : 'FAILED'} in ${result.check?.wallS} s, ${result.check?.cpuS} CPU s, ${result.check?.peakRssMiB} MiB\n` +
      `medians of ${runs} runs, ${drop ? 'cold page cache' : 'warm page cache'}:\n${t.text}\n`,
  );
  log(`results: ${path.relative(process.cwd(), out)}`);
}
