// Global options shared by every command, read from flags and restic's environment variables
// (RESTIC_REPOSITORY, RESTIC_REPOSITORY_FILE, RESTIC_PASSWORD, RESTIC_PASSWORD_FILE,
// RESTIC_PASSWORD_COMMAND, RESTIC_KEY_HINT, RESTIC_COMPRESSION, RESTIC_PACK_SIZE).

import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { CairnError } from '../core/errors';
import { defineFlags, oneOf, type FlagValues } from './args';
import type { CompressionMode } from '../core/repository/blob-codec';

export const GLOBAL_FLAGS = defineFlags({
  repo: { type: 'string', short: 'r', help: 'repository to back up to or restore from' },
  'repository-file': { type: 'string', help: 'file to read the repository location from' },
  'password-file': { type: 'string', short: 'p', help: 'file to read the repository password from' },
  'password-command': { type: 'string', help: 'shell command to obtain the repository password from' },
  'key-hint': { type: 'string', help: 'key ID of key to try decrypting first' },
  json: { type: 'bool', help: 'set output mode to JSON for commands that support it' },
  quiet: { type: 'bool', short: 'q', help: 'do not output comprehensive progress report' },
  verbose: { type: 'count', short: 'v', help: 'be verbose (specify multiple times or a level using --verbose=n, max level/times is 2)' },
  'no-lock': { type: 'bool', help: 'do not lock the repository' },
  'no-cache': { type: 'bool', help: 'accepted for restic compatibility (cairn keeps no cache)' },
  'cache-dir': { type: 'string', help: 'accepted for restic compatibility' },
  compression: { type: 'string', help: 'compression mode: auto, off, max' },
  'pack-size': { type: 'int', help: 'target pack size in MiB (4–128)' },
  'stuck-request-timeout': { type: 'string', help: 'duration after which to retry stuck requests (default 5m0s)' },
  option: { type: 'strings', short: 'o', help: 'set extended option (key=value)' },
  'log-file': { type: 'string', help: 'append one JSON line per operation to this file' },
  help: { type: 'bool', short: 'h', help: 'help for this command' },
});

export interface GlobalOptions {
  repo?: string;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /** restic's verbosity: 0 with --quiet, 1 by default, 2 with -v, 3 with -vv. */
  verbosity: number;
  noLock: boolean;
  keyHint?: string;
  compression: CompressionMode;
  packSize?: number;
  /** restic's --stuck-request-timeout: a request without progress for this long is retried. */
  stuckTimeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** An S3 repository reached through a presign endpoint with a device token instead of keys. */
  presign?: PresignClient;
  passwordFlags: { file?: string; command?: string };
  /** restic's --cache-dir and --no-cache: where the backup journal is kept, or that none is. */
  cacheDir?: string;
  noCache: boolean;
  /** --log-file: where each operation appends one JSON line. */
  logFile?: string;
}

export interface PresignClient {
  endpoint: string;
  token: string;
}

/**
 * `-o s3.presign-endpoint=URL` (or CAIRN_PRESIGN_ENDPOINT) with the device token from
 * CAIRN_PRESIGN_TOKEN or the file CAIRN_PRESIGN_TOKEN_FILE; never from the command line, where
 * other users of the machine could read it. Other `-o` options are accepted and ignored.
 */
function presignClient(options: string[], env: NodeJS.ProcessEnv): PresignClient | undefined {
  const opt = options.find((o) => o.startsWith('s3.presign-endpoint='));
  const endpoint = opt?.slice('s3.presign-endpoint='.length) ?? env.CAIRN_PRESIGN_ENDPOINT;
  if (!endpoint) return undefined;
  if (!/^https?:\/\//.test(endpoint)) throw new CairnError('USAGE', `s3.presign-endpoint must be an http(s) URL: ${endpoint}`);
  let token = env.CAIRN_PRESIGN_TOKEN;
  if (!token && env.CAIRN_PRESIGN_TOKEN_FILE) {
    try {
      token = goTrimSpace(fs.readFileSync(env.CAIRN_PRESIGN_TOKEN_FILE, 'utf8'));
    } catch (e) {
      throw new CairnError('USAGE', `cannot read CAIRN_PRESIGN_TOKEN_FILE: ${(e as Error).message}`, { cause: e });
    }
  }
  if (!token) throw new CairnError('USAGE', 'a presign endpoint needs the device token in CAIRN_PRESIGN_TOKEN or CAIRN_PRESIGN_TOKEN_FILE');
  return { endpoint, token: token.trim() };
}

export function globalOptions(f: FlagValues<typeof GLOBAL_FLAGS>, env: NodeJS.ProcessEnv): GlobalOptions {
  // restic 0.14 ReadRepo: each flag defaults to its variable, and the two sources exclude
  // each other: -r/RESTIC_REPOSITORY with --repository-file is refused, neither wins.
  let repo = f.repo ?? env.RESTIC_REPOSITORY;
  const repoFile = f['repository-file'] ?? env.RESTIC_REPOSITORY_FILE;
  if (repo && repoFile) throw new CairnError('USAGE', 'Options -r and --repository-file are mutually exclusive, please specify only one');
  if (repoFile) {
    try {
      repo = goTrimSpace(fs.readFileSync(repoFile, 'utf8'));
    } catch (e) {
      throw new CairnError('USAGE', `cannot read repository file ${repoFile}: ${(e as Error).message}`, { cause: e });
    }
  }
  const compression = compressionMode(f.compression ?? env.RESTIC_COMPRESSION ?? 'auto');
  const packSizeMiB = f['pack-size'] ?? (env.RESTIC_PACK_SIZE ? Number(env.RESTIC_PACK_SIZE) : undefined);
  if (packSizeMiB !== undefined && (!Number.isInteger(packSizeMiB) || packSizeMiB < 4 || packSizeMiB > 128)) {
    throw new CairnError('USAGE', `pack size ${packSizeMiB} MiB is outside the allowed range 4–128 MiB`);
  }
  return {
    repo,
    json: f.json === true,
    quiet: f.quiet === true,
    verbose: (f.verbose ?? 0) > 0,
    verbosity: verbosityOf(f.quiet === true, f.verbose ?? 0),
    noLock: f['no-lock'] === true,
    keyHint: f['key-hint'] ?? env.RESTIC_KEY_HINT,
    compression,
    packSize: packSizeMiB === undefined ? undefined : packSizeMiB * 1024 * 1024,
    stuckTimeoutMs: stuckTimeout(f['stuck-request-timeout']),
    env,
    presign: presignClient(f.option ?? [], env),
    passwordFlags: { file: f['password-file'], command: f['password-command'] },
    cacheDir: f['cache-dir'],
    noCache: f['no-cache'] === true,
    logFile: f['log-file'],
  };
}

const COMPRESSION_MODES: readonly CompressionMode[] = ['auto', 'off', 'max'];

function compressionMode(text: string): CompressionMode {
  const mode = oneOf(COMPRESSION_MODES, text);
  if (!mode) throw new CairnError('USAGE', `invalid compression mode "${text}" (auto, off or max)`);
  return mode;
}

/** restic's global verbosity: -v and -vv win over --quiet. */
function verbosityOf(quiet: boolean, verbose: number): number {
  if (verbose >= 2) return 3;
  if (verbose > 0) return 2;
  return quiet ? 0 : 1;
}

/** restic's default stuck-request timeout (internal/backend/http_transport.go). */
const DEFAULT_STUCK_TIMEOUT_MS = 5 * 60_000;

function stuckTimeout(flag: string | undefined): number {
  if (flag === undefined) return DEFAULT_STUCK_TIMEOUT_MS;
  const ms = parseGoDuration(flag);
  if (ms === undefined || ms <= 0)
    throw new CairnError('USAGE', `invalid argument "${flag}" for "--stuck-request-timeout" flag: a positive duration such as 30s or 5m`);
  return ms;
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration ("1h2m3.5s", "250ms"), in milliseconds; undefined if malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    ms += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    at = re.lastIndex;
  }
  return at > 0 ? Math.round(ms) : undefined;
}

/**
 * restic 0.14 resolvePassword (cmd/restic/global.go): --password-file defaults to
 * RESTIC_PASSWORD_FILE and --password-command to RESTIC_PASSWORD_COMMAND; a file and a command
 * together are an error; then a non-empty RESTIC_PASSWORD;
 * then ask (also when the file or command gave nothing). File contents and command output are
 * TrimSpace'd, all surrounding whitespace (a file "pw\n\n" is "pw"). Refusing a file with a
 * command means a flag never combines unnoticed with the other kind's variable; an empty
 * RESTIC_PASSWORD counts as none.
 */
export async function readPassword(globals: GlobalOptions, prompt = 'enter password for repository: '): Promise<string> {
  const file = globals.passwordFlags.file ?? globals.env.RESTIC_PASSWORD_FILE ?? '';
  const command = globals.passwordFlags.command ?? globals.env.RESTIC_PASSWORD_COMMAND ?? '';
  if (file && command) throw new CairnError('USAGE', 'Password file and command are mutually exclusive options');
  const password = command ? runPasswordCommand(command) : file ? readPasswordFile(file) : (globals.env.RESTIC_PASSWORD ?? '');
  // restic's ReadPassword: an empty result (empty file or variable) means "ask".
  return password || askPassword(prompt);
}

function readPasswordFile(file: string): string {
  try {
    return goTrimSpace(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CairnError('NO_PASSWORD', `cannot read password file ${file}: ${(e as Error).message}`);
  }
}

function runPasswordCommand(cmd: string): string {
  try {
    return goTrimSpace(execSync(cmd, { encoding: 'utf8', stdio: ['inherit', 'pipe', 'inherit'] }));
  } catch (e) {
    throw new CairnError('NO_PASSWORD', `password command failed: ${(e as Error).message}`);
  }
}

/** Go's strings.TrimSpace: Unicode White_Space at both ends (not U+FEFF, which JS trim() strips). */
export function goTrimSpace(s: string): string {
  return s.replace(
    /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
    '',
  );
}

let stdinLines: string[] | undefined;

/** Asks on the terminal without echo, or reads the next line of stdin when it is not a terminal. */
export async function askPassword(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    if (!stdinLines) {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      stdinLines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
    }
    const line = stdinLines.shift();
    if (line === undefined || (line === '' && stdinLines.length === 0))
      throw new CairnError(
        'NO_PASSWORD',
        'Fatal: an empty password is not allowed by default. Pass the password via RESTIC_PASSWORD, --password-file or stdin',
      );
    return line;
  }
  process.stderr.write(prompt);
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.resume();
  let pw = '';
  try {
    for await (const chunk of stdin) {
      for (const ch of (chunk as Buffer).toString('utf8')) {
        if (ch === '\r' || ch === '\n') return pw;
        if (ch === '\u0003') throw new CairnError('ABORTED', 'interrupted');
        if (ch === '\u007f') pw = pw.slice(0, -1);
        else pw += ch;
      }
    }
    return pw;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

export function localOwner(): { hostname: string; username: string; uid?: number; gid?: number; pid: number } {
  let username = '';
  try {
    username = os.userInfo().username;
  } catch {
    // no passwd entry
  }
  return {
    hostname: os.hostname(),
    username,
    uid: process.getuid?.(),
    gid: process.getgid?.(),
    pid: process.pid,
  };
}
