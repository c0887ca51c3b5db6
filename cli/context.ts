// What every command gets: parsed options, output, and helpers to open the repository and
// take restic's locks.

import { Repository } from '../core/repository/repository';
import { Lock } from '../core/repository/lock';
import type { Backend } from '../core/backend/backend';
import type { RetryInfo } from '../core/backend/retry';
import { serializeError } from '../core/errors';
import { primitives } from '../core/crypto/primitives';
import { calibrateKdf, type KdfParams } from '../core/repository/kdf-params';
import type { FlagSpecs, FlagValues } from './args';
import { localOwner, readPassword, type GlobalOptions } from './global';
import { openBackend, parseLocation, type BackendSpec } from './location';
import type { OpLog } from './op-log';
import type { Out } from './output';

/** A command's context; `F`, its flag set, types the parsed flags (none by default). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no flags: the empty set
export interface Context<F extends FlagSpecs = {}> {
  /** The global flags and restic's environment variables, resolved. */
  globals: GlobalOptions;
  /** The command's own flags, typed by its flag set. */
  flags: FlagValues<F>;
  /** The arguments after the flags are taken out. */
  args: string[];
  out: Out;
  signal: AbortSignal;
  /** With --log-file: where the command reports its summary numbers and errors. */
  log?: OpLog;
}

export interface Opened {
  repo: Repository;
  spec: BackendSpec;
}

/** How long releasing a lock may take once the command was interrupted (the server may be the thing that hangs). */
const RELEASE_AFTER_INTERRUPT_MS = 700;

/** Locks this process holds, so an interrupt that cannot wait for a command to end can still remove them. */
const heldLocks = new Set<Lock>();

/** Removes every lock still held, giving up after `ms` (the process is about to exit). */
export async function releaseHeldLocks(ms = RELEASE_AFTER_INTERRUPT_MS): Promise<void> {
  const deadline = AbortSignal.timeout(ms);
  await Promise.all([...heldLocks].map((l) => l.release(deadline).catch(() => {})));
}

/** The repository's location as a spec worker threads can open too, with the global options that shape requests. */
export function backendSpec(ctx: Context): BackendSpec {
  const spec = parseLocation(ctx.globals.repo, ctx.globals.env, ctx.globals.presign);
  return spec.kind === 's3' ? { ...spec, stuckTimeoutMs: ctx.globals.stuckTimeoutMs } : spec;
}

/** Opens the backend; a remote one is contacted once at first, so an unreachable server is named at once. */
export function openContextBackend(ctx: Context, spec: BackendSpec, opts: { create?: boolean } = {}): Promise<Backend> {
  return openBackend(spec, { ...opts, probe: true, signal: ctx.signal, onRetry: (info) => ctx.out.stderr(retryLine(info)) });
}

/** restic's warning for a retried request. */
function retryLine(info: RetryInfo): string {
  const op = info.op[0]!.toUpperCase() + info.op.slice(1);
  return `${op}(${info.target}) returned error, retrying after ${(info.delayMs / 1000).toFixed(3)}s: ${serializeError(info.error).message}\n`;
}

export async function openRepository(ctx: Context, opts: Pick<OpenOptions, 'silent' | 'wrap'> = {}): Promise<Opened> {
  const spec = backendSpec(ctx);
  const opened = await openContextBackend(ctx, spec);
  const backend = opts.wrap ? opts.wrap(opened) : opened;
  const password = await readPassword(ctx.globals);
  const repo = await Repository.open(backend, password, { keyHint: ctx.globals.keyHint, signal: ctx.signal });
  repo.compression = ctx.globals.compression;
  repo.packSize = ctx.globals.packSize;
  // restic prints this only when stdout is a terminal, so piped output stays the command's own.
  if (!ctx.globals.quiet && !ctx.globals.json && !opts.silent && process.stdout.isTTY === true) {
    ctx.out.stdout(`repository ${repo.config.id.slice(0, 8)} opened (repository version ${repo.version}) successfully, password is correct\n`);
  }
  return { repo, spec };
}

/**
 * restic's lock kinds (cmd/restic/lock.go): `read` is shared and skipped with --no-lock;
 * `append` is shared and always taken (the command writes); `exclusive` excludes every other lock.
 */
export type LockKind = 'read' | 'append' | 'exclusive';

/**
 * Runs `fn` holding a lock of `kind` (none when `noLock`, or for `read` with --no-lock). The
 * lock is removed however `fn` ends; after an interrupt that removal gets a short deadline of its own.
 */
export async function withLock<T>(ctx: Context, repo: Repository, kind: LockKind, fn: () => Promise<T>, noLock = false): Promise<T> {
  if (noLock || (kind === 'read' && ctx.globals.noLock)) return fn();
  const owner = localOwner();
  const lock = await Lock.acquire(repo, { ...owner, processAlive: isAlive }, kind === 'exclusive', ctx.signal);
  heldLocks.add(lock);
  ignoreHangups();
  try {
    return await fn();
  } finally {
    await lock.release(ctx.signal.aborted ? AbortSignal.timeout(RELEASE_AFTER_INTERRUPT_MS) : undefined);
    heldLocks.delete(lock);
  }
}

export interface OpenOptions {
  /** No "repository … opened" line, even on a terminal (the command's output is data). */
  silent?: boolean;
  /** Wraps the backend before the repository is opened on it (backup --dry-run writes nothing). */
  wrap?: (b: Backend) => Backend;
  /** Take no lock at all (dry runs, and `list locks`, which would list its own). */
  noLock?: boolean;
  /** Print restic's "create exclusive lock for repository" once the repository is open. */
  announce?: boolean;
  /** Load the index once the lock is held. */
  loadIndex?: boolean;
}

/**
 * What every command that reads or writes a repository starts with (restic's
 * openWithReadLock / openWithAppendLock / openWithExclusiveLock): open it, take the lock of
 * `kind`, optionally load the index, then run `fn`; the lock is removed however `fn` ends.
 */
export async function withRepository<T>(ctx: Context, kind: LockKind, fn: (opened: Opened) => Promise<T>, opts: OpenOptions = {}): Promise<T> {
  const opened = await openRepository(ctx, opts);
  if (opts.announce && !ctx.globals.quiet && !ctx.globals.json) ctx.out.stdout('create exclusive lock for repository\n');
  return withLock(
    ctx,
    opened.repo,
    kind,
    async () => {
      if (opts.loadIndex) await opened.repo.loadIndex({ signal: ctx.signal });
      return fn(opened);
    },
    opts.noLock,
  );
}

/**
 * restic asks whether a lock's process is alive by sending it SIGHUP (lock_unix.go), and a
 * restic process holding a lock ignores SIGHUP: so must we, or `restic unlock` on this host
 * would kill a running `cairn backup`.
 */
function ignoreHangups(): void {
  if (process.listenerCount('SIGHUP') === 0) process.on('SIGHUP', () => {});
}

let calibrated: Promise<KdfParams> | undefined;

/**
 * The tests' cheap scrypt parameters in the CLI's test bundle only (dist/cli-test:
 * scripts/build-cli.mjs defines it from test/helpers/test-kdf.json); the shipped bundle
 * (dist/cli) is built with null, which drops the branch it guards.
 */
declare const __CAIRN_KDF_FOR_TESTS__: KdfParams | null | undefined;

/**
 * scrypt parameters for a new key file: calibrated on this machine once per process, as restic
 * does (~0.5 s, 60 MiB). In the test bundle, CAIRN_TEST_KDF=1 gives the tests' cheap KDF instead
 * (as restic's tests do); the shipped CLI reads no such variable.
 */
export function newKeyParams(ctx: Context): Promise<KdfParams> {
  if (typeof __CAIRN_KDF_FOR_TESTS__ !== 'undefined' && __CAIRN_KDF_FOR_TESTS__ && ctx.globals.env.CAIRN_TEST_KDF === '1')
    return Promise.resolve(__CAIRN_KDF_FOR_TESTS__);
  const salt = primitives().randomBytes(64);
  const password = new TextEncoder().encode('weakpassword');
  calibrated ??= calibrateKdf(async ({ N, r, p }) => void (await primitives().scrypt(password, salt, N, r, p, 64)));
  return calibrated;
}

/** Is a process of this host alive (what makes a lock of this host stale, as in restic)? */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
