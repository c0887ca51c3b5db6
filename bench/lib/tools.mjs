// The command-line tools under test, behind one shape: restic 0.14 and cairn (Node). Both get
// the same repository locations, password, host name and flags; restic keeps its cache (its
// default) in a directory that is deleted with the repository. Init is never timed.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT } from './config.mjs';
import { timed } from './measure.mjs';

export const PASSWORD = 'cairn-bench-password';
export const HOST = 'bench';

function lastJson(stdout, type = 'summary') {
  const lines = stdout.trim().split('\n').reverse();
  for (const l of lines) {
    try {
      const j = JSON.parse(l);
      if (j.message_type === type) return j;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

function fail(what, r) {
  const tail = (r.stderr || r.stdout)
    .trim()
    .split('\n')
    .filter((l) => !/MaxListenersExceeded|--trace-warnings/.test(l))
    .slice(-4)
    .join(' | ');
  return new Error(`${what} exited ${r.code}: ${tail}`);
}

function baseEnv(extra) {
  return { ...process.env, RESTIC_PASSWORD: PASSWORD, ...extra };
}

/**
 * How to run a cairn bundle: as users do, through the package's bin/cairn next to it
 * (<pkg>/dist/cli/cairn.mjs with <pkg>/bin/cairn: it starts node with glibc's mmap threshold
 * fixed, see there); a bundle without one (an older build, BENCH_CAIRN_BEFORE) on node.
 */
export function cairnCommand(bundle) {
  const launcher = path.resolve(path.dirname(bundle), '../../bin/cairn');
  return path.basename(path.dirname(bundle)) === 'cli' && fs.existsSync(launcher) ? [launcher] : [process.execPath, bundle];
}

class CliTool {
  constructor(name, cfg, s3env) {
    this.name = name;
    this.cfg = cfg;
    this.s3env = s3env ?? {};
  }
  env(repo) {
    return baseEnv({ ...this.s3env, ...(repo.cacheDir ? { RESTIC_CACHE_DIR: repo.cacheDir } : {}) });
  }
  async run(repo, args, opts = {}) {
    const [cmd, pre] = this.command();
    return timed(cmd, [...pre, '-r', repo.url, ...args], { env: this.env(repo), ...opts });
  }
  async init(repo) {
    const r = await this.run(repo, this.initArgs());
    if (r.code !== 0) throw fail(`${this.name} init`, r);
  }
  async backup(repo, dir, opts) {
    const r = await this.run(repo, ['backup', dir, '--json', '-q', '--host', HOST, ...this.backupArgs()], opts);
    if (r.code !== 0) throw fail(`${this.name} backup`, r);
    const s = lastJson(r.stdout);
    if (!s) throw new Error(`${this.name} backup printed no summary`);
    return { ...r, summary: s };
  }
  async restore(repo, snapshot, target, opts) {
    const r = await this.run(repo, ['restore', snapshot, '--target', target, '-q'], opts);
    if (r.code !== 0) throw fail(`${this.name} restore`, r);
    return r;
  }
  /** The whole snapshot as one ZIP archive on stdout, thrown away: `dump --archive zip <id> /`. */
  async zip(repo, snapshot, opts) {
    const [cmd, pre] = this.command();
    const r = await timed('sh', ['-c', '"$0" "$@" > /dev/null', cmd, ...pre, '-r', repo.url, 'dump', '--archive', 'zip', snapshot, '/'], {
      env: this.env(repo),
      ...opts,
    });
    if (r.code !== 0) throw fail(`${this.name} dump --archive zip`, r);
    return r;
  }
  /** Process start, key derivation and opening the repository: `cat config`. */
  async open(repo, opts) {
    const r = await this.run(repo, ['cat', 'config'], opts);
    if (r.code !== 0) throw fail(`${this.name} cat config`, r);
    return r;
  }
  /** `forget --keep-last <keep> --prune`, timed as one command. */
  async prune(repo, keep, opts) {
    const r = await this.run(repo, ['forget', '--keep-last', String(keep), '--prune', '-q'], opts);
    if (r.code !== 0) throw fail(`${this.name} forget --prune`, r);
    return r;
  }
  async check(repo, opts) {
    const r = await this.run(repo, ['check', '--read-data', '-q'], opts);
    if (r.code !== 0) throw fail(`${this.name} check --read-data`, r);
    return r;
  }
  /** A random tenth of the packs (restic picks them anew each run, and so does cairn). */
  async checkSubset(repo, opts) {
    const r = await this.run(repo, ['check', '--read-data-subset', '10%', '-q'], opts);
    if (r.code !== 0) throw fail(`${this.name} check --read-data-subset 10%`, r);
    return r;
  }
}

export class Restic extends CliTool {
  constructor(cfg, s3env) {
    super('restic', cfg, s3env);
  }
  command() {
    return [this.cfg.restic, []];
  }
  initArgs() {
    return ['init', '--repository-version', '2', '-q'];
  }
  backupArgs() {
    return [];
  }
  version() {
    return execFileSync(this.cfg.restic, ['version'], { encoding: 'utf8' }).trim();
  }
  /** Files to read into the page cache after dropping it, so only data and repository start cold. */
  warmFiles() {
    return [this.cfg.restic];
  }
}

export class CairnNode extends CliTool {
  constructor(cfg, s3env) {
    super('cairn', cfg, s3env);
  }
  env(repo) {
    // Real key-derivation parameters by default: restic derives its key (its own calibrated
    // scrypt parameters) at the start of every command, so cairn should too. BENCH_CAIRN_TEST_KDF=1
    // gives cairn's repositories cheap parameters instead (then cairn saves ~0.3 s per command;
    // config.mjs then runs the CLI's test bundle, the only one that reads CAIRN_TEST_KDF).
    return { ...super.env(repo), ...(process.env.BENCH_CAIRN_TEST_KDF === '1' ? { CAIRN_TEST_KDF: '1' } : {}) };
  }
  command() {
    const [cmd, ...pre] = cairnCommand(this.cfg.cairn);
    return [cmd, pre];
  }
  /** The CLI has no ZIP download (its `dump --archive zip` is not what the zip phase times). */
  supportsPhase(phase) {
    return phase !== 'zip';
  }
  initArgs() {
    return ['init', '--repository-version', '2', '-q'];
  }
  backupArgs() {
    return process.env.BENCH_CAIRN_THREADS ? ['--threads', process.env.BENCH_CAIRN_THREADS] : [];
  }
  version() {
    return execFileSync(process.execPath, [this.cfg.cairn, 'version'], { encoding: 'utf8' }).trim();
  }
  warmFiles() {
    const dist = path.dirname(this.cfg.cairn);
    const zstd = path.join(ROOT, 'node_modules/@bokuweb/zstd-wasm/dist/common/zstd.wasm');
    return [
      process.execPath,
      ...fs
        .readdirSync(dist)
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => path.join(dist, f)),
      zstd,
    ];
  }
  /** Whether the CLI can open an S3 repository yet (cli/adapters/s3.ts). */
  async s3Support(url) {
    const r = await this.run({ url }, ['init', '--repository-version', '2', '-q']);
    if (r.code === 0) return { ok: true };
    return { ok: false, reason: (r.stderr.split('\n').find((l) => /S3|s3/.test(l)) ?? r.stderr).trim().slice(0, 200) };
  }
}

/** Reads files so they sit in the page cache (tool binaries after a cache drop). */
export function warm(files) {
  for (const f of files) {
    try {
      const fd = fs.openSync(f, 'r');
      const buf = Buffer.allocUnsafe(1 << 20);
      while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
      fs.closeSync(fd);
    } catch {
      // optional file
    }
  }
}
