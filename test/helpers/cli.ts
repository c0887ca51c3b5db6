// Run the real restic binary and the built cairn CLI in tests, and compare directory trees.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, lstat, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The CLI's test bundle (scripts/build-cli.mjs): the shipped CLI plus the test hooks TEST_ENV sets. */
export const CAIRN_BIN = join(ROOT, 'dist/cli-test/cairn.mjs');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** Kill the process with this signal after `ms`. */
  killAfter?: { ms: number; signal: NodeJS.Signals };
}

/** Cheap scrypt for repositories cairn creates in tests (restic's tests do the same; CAIRN_BIN's test bundle only). */
export const TEST_ENV = { RESTIC_PASSWORD: 'test-password', CAIRN_TEST_KDF: '1', RESTIC_CACHE_DIR: join(tmpdir(), 'cairn-test-restic-cache') };

export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ...TEST_ENV, ...opts.env })) if (v !== undefined) env[k] = v;
    const p = spawn(cmd, args, { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', reject);
    if (opts.killAfter) setTimeout(() => p.kill(opts.killAfter!.signal), opts.killAfter.ms);
    p.on('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 128 + 9 : 1), stdout, stderr }));
    p.stdin.on('error', () => {}); // EPIPE when the process exits before reading its input
    p.stdin.end(opts.input ?? '');
  });
}

export const cairn = (args: string[], opts?: RunOptions) => run(process.execPath, [CAIRN_BIN, ...args], opts);
export const restic = (args: string[], opts?: RunOptions) => run('restic', args, opts);

/** Like run, but throws with the output when the exit code is not 0. */
export async function ok(p: Promise<RunResult>): Promise<RunResult> {
  const r = await p;
  if (r.code !== 0) throw new Error(`exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

export async function tempDir(label = 'cairn'): Promise<string> {
  return mkdtemp(join(tmpdir(), `${label}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export interface TreeEntry {
  type: 'file' | 'dir' | 'symlink';
  /** sha256 of file contents, link target, or '' for dirs. */
  content: string;
  size: number;
  mode: number;
}

/** A comparable description of a directory tree: path → type, content hash, size, permission bits. */
export async function describeTree(root: string): Promise<Map<string, TreeEntry>> {
  const out = new Map<string, TreeEntry>();
  const visit = async (dir: string, rel: string) => {
    for (const name of (await readdir(dir)).sort()) {
      const p = join(dir, name),
        r = rel ? `${rel}/${name}` : name;
      const st = await lstat(p);
      if (st.isSymbolicLink()) out.set(r, { type: 'symlink', content: await readlink(p), size: 0, mode: 0 });
      else if (st.isDirectory()) {
        out.set(r, { type: 'dir', content: '', size: 0, mode: st.mode & 0o7777 });
        await visit(p, r);
      } else
        out.set(r, {
          type: 'file',
          content: createHash('sha256')
            .update(await readFile(p))
            .digest('hex'),
          size: st.size,
          mode: st.mode & 0o7777,
        });
    }
  };
  await visit(root, '');
  return out;
}

/** Differences between two trees, as readable lines (empty when identical). */
export async function diffTrees(expected: string, actual: string): Promise<string[]> {
  const a = await describeTree(expected),
    b = await describeTree(actual);
  const lines: string[] = [];
  for (const [p, e] of a) {
    const g = b.get(p);
    if (!g) lines.push(`missing: ${JSON.stringify(p)}`);
    else if (g.type !== e.type || g.content !== e.content || g.size !== e.size || g.mode !== e.mode) {
      lines.push(`differs: ${JSON.stringify(p)} expected ${JSON.stringify(e)} got ${JSON.stringify(g)}`);
    }
  }
  for (const p of b.keys()) if (!a.has(p)) lines.push(`unexpected: ${JSON.stringify(p)}`);
  return lines;
}

/** Parses restic/cairn `--json` output: the last line that is a JSON object of the given message_type. */
export function jsonMessage(stdout: string, type: string): Record<string, unknown> {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      if (o.message_type === type) return o;
    } catch {
      // progress lines etc.
    }
  }
  throw new Error(`no ${type} message in:\n${stdout}`);
}
