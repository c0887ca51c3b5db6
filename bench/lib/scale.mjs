// The scale section (BENCH_SECTIONS=scale): many tiny files, the case where per-file costs and
// per-file memory decide. Generated trees (lib/scale-gen.mjs, cached under BENCH_SCALE_DIR):
//   tiny  BENCH_SCALE_FILES files of 10 B in 5 folders (default 1 000 000; kopia's and
//         restic's well-known comparison at 1/5 of its size)
//   home  a home-folder-like mix of BENCH_SCALE_HOME_FILES files (default 200 000): small
//         files in deep folders, unicode names, a few large files
// Per tree and run, each tool in turn (the order flips every run): first backup into a fresh
// repository (init untimed), unchanged re-backup, `ls` of the latest snapshot (to /dev/null),
// restore of the latest snapshot (file count checked). Tools: restic 0.14, cairn, and borg 1.2
// (`borg create` / `list` / `extract`, repokey-blake2, its default lz4) where it is installed.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ensureScaleTree } from './scale-gen.mjs';
import { dirBytes, timed, waitForQuiet } from './measure.mjs';
import { cairnCommand, HOST, PASSWORD, warm } from './tools.mjs';

export const SCALE_PHASES = ['backup', 'unchanged', 'ls', 'restore'];
const BORG = process.env.BENCH_BORG && process.env.BENCH_BORG !== '0' ? process.env.BENCH_BORG : '/usr/bin/borg';

export function scaleConfig(env = process.env) {
  const files = Number(env.BENCH_SCALE_FILES ?? 1_000_000);
  const homeFiles = Number(env.BENCH_SCALE_HOME_FILES ?? Math.round(files / 5));
  const trees = (env.BENCH_SCALE_TREES ?? 'tiny,home').split(',').filter(Boolean);
  const phases = (env.BENCH_SCALE_PHASES ?? SCALE_PHASES.join(',')).split(',').filter(Boolean);
  for (const p of phases) if (!SCALE_PHASES.includes(p)) throw new Error(`BENCH_SCALE_PHASES: unknown ${p} (choose from ${SCALE_PHASES.join(', ')})`);
  for (const t of trees) if (!['tiny', 'home'].includes(t)) throw new Error(`BENCH_SCALE_TREES: unknown ${t} (tiny, home)`);
  return { files, homeFiles, trees, phases, dir: path.resolve(env.BENCH_SCALE_DIR ?? '/tmp/cairn-scale') };
}

/** Runs `cmd args…` with stdout thrown away (ls prints a line per file). */
const quietly = (cmd, args, opts) => timed('sh', ['-c', '"$0" "$@" > /dev/null', cmd, ...args], opts);

function countFiles(dir) {
  let files = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else files++;
    }
  };
  walk(dir);
  return files;
}

/** restic and cairn take the same arguments; borg gets its own. */
function cliTool(name, command, warmFiles) {
  const env = (repo) => ({ ...process.env, RESTIC_PASSWORD: PASSWORD, RESTIC_CACHE_DIR: repo.cache });
  const run = (repo, args, opts) => timed(command[0], [...command.slice(1), '-r', repo.dir, ...args], { env: env(repo), ...opts });
  return {
    name,
    warmFiles,
    init: (repo) => run(repo, ['init', '--repository-version', '2', '-q']),
    backup: (repo, src, opts) => run(repo, ['backup', src, '--json', '-q', '--host', HOST], opts),
    ls: (repo, opts) => quietly(command[0], [...command.slice(1), '-r', repo.dir, 'ls', 'latest'], { env: env(repo), ...opts }),
    restore: (repo, target, opts) => run(repo, ['restore', 'latest', '--target', target, '-q'], opts),
  };
}

function borgTool() {
  const env = (repo) => ({
    ...process.env,
    BORG_PASSPHRASE: PASSWORD,
    BORG_BASE_DIR: repo.cache, // its cache, keys and security dir: deleted with the repository
    BORG_RELOCATED_REPO_ACCESS_IS_OK: 'yes',
  });
  let n = 0;
  return {
    name: 'borg',
    warmFiles: [BORG],
    init: (repo) => timed(BORG, ['init', '--encryption=repokey-blake2', repo.dir], { env: env(repo) }),
    backup: (repo, src, opts) => timed(BORG, ['create', `${repo.dir}::s${++n}`, src], { env: env(repo), ...opts }),
    ls: (repo, opts) => quietly(BORG, ['list', `${repo.dir}::s${n}`], { env: env(repo), ...opts }),
    restore: (repo, target, opts) => timed(BORG, ['extract', `${repo.dir}::s${n}`], { env: env(repo), cwd: target, ...opts }),
  };
}

function version(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).trim().split('\n')[0];
  } catch {
    return undefined;
  }
}

/** The tools of the scale section, with what is missing as notes. */
export function scaleTools(cfg) {
  const tools = [];
  const notes = [];
  if (cfg.tools.includes('restic')) tools.push(cliTool('restic', [cfg.restic], [cfg.restic]));
  if (cfg.tools.includes('cairn')) tools.push(cliTool('cairn', cairnCommand(cfg.cairn), [process.execPath, cfg.cairn]));
  // Another cairn build to compare against (e.g. before a change): BENCH_CAIRN_BEFORE=<its cairn.mjs>.
  const before = process.env.BENCH_CAIRN_BEFORE;
  if (before) tools.push(cliTool('cairn-before', [process.execPath, before], [process.execPath, before]));
  if (process.env.BENCH_BORG === '0') notes.push('borg: left out (BENCH_BORG=0)');
  else if (fs.existsSync(BORG)) tools.push(borgTool());
  else notes.push(`borg: not installed (${BORG}; apt-get install -y borgbackup)`);
  const versions = Object.fromEntries([
    ['restic', version(cfg.restic, ['version'])],
    ['borg', fs.existsSync(BORG) ? version(BORG, ['--version']) : undefined],
  ]);
  return { tools, notes, versions };
}

/**
 * Runs the section; record(row) gets every timed command. Rows: { tree, run, phase, tool,
 * wall, user, sys, peakRss, background, repoBytes?, files, error? }.
 */
export async function runScale(cfg, { drop, log, record, quietWait }) {
  const sc = scaleConfig();
  const { tools, notes, versions } = scaleTools(cfg);
  const scratch = path.join(sc.dir, 'runs');
  const trees = sc.trees.map((t) => ensureScaleTree(sc.dir, t, t === 'tiny' ? sc.files : sc.homeFiles, log));
  const timedOpts = (tool) => (drop ? { dropCache: true, beforeStart: () => warm(tool.warmFiles) } : {});
  for (const tree of trees) {
    for (let rep = 0; rep < cfg.runs; rep++) {
      const order = rep % 2 === 0 ? tools : [...tools].reverse();
      log(`[scale ${tree.kind} ${tree.fileCount} files, run ${rep + 1}/${cfg.runs}] order: ${order.map((t) => t.name).join(', ')}`);
      for (const tool of order) await runTool(tool, tree, rep);
    }
  }
  return { config: sc, trees: trees.map(({ dir, ...t }) => ({ ...t, dir })), notes, versions };

  async function runTool(tool, tree, rep) {
    const base = path.join(scratch, `${tool.name}-${tree.kind}`);
    fs.rmSync(base, { recursive: true, force: true });
    const repo = { dir: path.join(base, 'repo'), cache: path.join(base, 'cache') };
    fs.mkdirSync(repo.cache, { recursive: true });
    const step = async (phase, fn) => {
      const quiet = quietWait > 0 ? await waitForQuiet({ maxWait: quietWait }) : undefined;
      const r = await fn();
      const row = {
        tree: tree.kind,
        files: tree.fileCount,
        run: rep,
        phase,
        tool: tool.name,
        wall: r.wall,
        user: r.user,
        sys: r.sys,
        peakRss: r.peakRss,
        background: r.background,
        quietWait: quiet?.waited,
      };
      if (r.code !== 0) row.error = `exit ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`;
      return row;
    };
    const done = (row, extra = {}) => {
      Object.assign(row, extra);
      record(row);
      const cpu = (row.user ?? 0) + (row.sys ?? 0);
      log(
        `  ${row.phase.padEnd(9)} ${row.tool.padEnd(7)} ${row.wall.toFixed(1).padStart(7)} s  cpu ${cpu.toFixed(1).padStart(6)} s  ${(row.peakRss / 2 ** 20).toFixed(0).padStart(5)} MiB` +
          `${row.repoBytes !== undefined ? `  repo ${(row.repoBytes / 2 ** 20).toFixed(1)} MiB` : ''}${row.error ? `  FAILED ${row.error}` : ''}`,
      );
      return !row.error;
    };
    try {
      const init = await tool.init(repo);
      if (init.code !== 0)
        return done({ tree: tree.kind, run: rep, phase: 'backup', tool: tool.name, wall: 0, peakRss: 0, error: `init: ${init.stderr.trim()}` });
      const sizeNow = () => dirBytes(repo.dir).bytes;
      if (!done(await step('backup', () => tool.backup(repo, tree.dir, timedOpts(tool))), { repoBytes: sizeNow() })) return;
      if (sc.phases.includes('unchanged')) {
        const before = sizeNow();
        if (!done(await step('unchanged', () => tool.backup(repo, tree.dir, timedOpts(tool))), { repoBytes: sizeNow(), bytesWritten: sizeNow() - before }))
          return;
      }
      if (sc.phases.includes('ls') && !done(await step('ls', () => tool.ls(repo, timedOpts(tool))))) return;
      if (sc.phases.includes('restore')) {
        const target = path.join(base, 'restore');
        fs.mkdirSync(target, { recursive: true });
        const row = await step('restore', () => tool.restore(repo, target, timedOpts(tool)));
        const got = row.error ? undefined : countFiles(target);
        if (got !== undefined && got !== tree.fileCount) row.error = `restored ${got} files, expected ${tree.fileCount}`;
        done(row);
      }
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  }
}

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? undefined : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Medians per tree, phase and tool, with ratios against restic (<1 favours the tool for every column). */
export function summarizeScale(rows) {
  const cells = new Map();
  for (const r of rows) {
    const k = `${r.tree}|${r.phase}|${r.tool}`;
    if (!cells.has(k)) cells.set(k, []);
    cells.get(k).push(r);
  }
  const out = [];
  for (const [k, rs] of cells) {
    const [tree, phase, tool] = k.split('|');
    const ok = rs.filter((r) => !r.error);
    out.push({
      tree,
      phase,
      tool,
      runs: ok.length,
      errors: rs.filter((r) => r.error).map((r) => r.error),
      wall: median(ok.map((r) => r.wall)),
      cpu: median(ok.map((r) => (r.user ?? NaN) + (r.sys ?? NaN))),
      rss: median(ok.map((r) => r.peakRss)),
      repoBytes: median(ok.map((r) => r.repoBytes)),
      bytesWritten: median(ok.map((r) => r.bytesWritten)),
      bg: median(ok.map((r) => (r.background === undefined ? NaN : r.background / r.wall))),
    });
  }
  return out;
}

export function renderScale(scale) {
  if (!scale) return '';
  if (scale.error) return `Scale: failed: ${scale.error}\n`;
  const cells = scale.cells;
  const get = (tree, phase, tool) => cells.find((c) => c.tree === tree && c.phase === phase && c.tool === tool);
  const x = (v, ref) => (v !== undefined && ref ? ` ×${(v / ref).toFixed(2)}` : '');
  const num = (v, d = 1) => (v === undefined ? '–' : v.toFixed(d));
  const lines = ['', 'Scale (medians; × = tool ÷ restic, <1 favours the tool in every column; CPU = user+sys, RSS = peak)'];
  for (const t of scale.trees) {
    lines.push('', `${t.label}: ${t.fileCount} files, ${t.dirCount} folders, ${(t.bytes / 2 ** 20).toFixed(1)} MiB`);
    lines.push('| phase | tool | wall s | CPU s | peak RSS MiB | repo MiB | bg cores |', '|---|---|---|---|---|---|---|');
    for (const phase of SCALE_PHASES) {
      const ref = get(t.kind, phase, 'restic');
      for (const tool of ['restic', 'cairn', 'cairn-before', 'borg']) {
        const c = get(t.kind, phase, tool);
        if (!c) continue;
        if (c.runs === 0) {
          lines.push(`| ${phase} | ${tool} | failed: ${c.errors[0]} | | | | |`);
          continue;
        }
        const rss = c.rss / 2 ** 20;
        const written = c.bytesWritten === undefined ? '' : ` (+${num(c.bytesWritten / 2 ** 20, 2)})`;
        const repo = c.repoBytes === undefined ? '' : `${num(c.repoBytes / 2 ** 20)}${x(c.repoBytes, ref?.repoBytes)}${written}`;
        lines.push(
          `| ${phase} | ${tool} | ${num(c.wall)}${x(c.wall, ref?.wall)} | ${num(c.cpu)}${x(c.cpu, ref?.cpu)} | ${num(rss, 0)}${x(c.rss, ref?.rss)} | ${repo} | ${num(c.bg, 2)} |`,
        );
      }
    }
  }
  for (const n of scale.notes ?? []) lines.push(`note: ${n}`);
  return lines.join('\n') + '\n';
}
