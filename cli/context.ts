// What every command gets: parsed options, output, and helpers to open the repository and
// take restic's locks.

import type { Backend } from '../core/backend/backend';
import { Repository } from '../core/repository/repository';
import { Lock } from '../core/repository/lock';
import type { Parsed } from './args';
import { localOwner, readPassword, type GlobalOptions } from './global';
import { openBackend, parseLocation, type BackendSpec } from './location';
import type { Out } from './output';

export interface Context {
  g: GlobalOptions;
  p: Parsed;
  out: Out;
  signal: AbortSignal;
}

export interface Opened {
  repo: Repository;
  spec: BackendSpec;
}

export async function openRepository(ctx: Context, opts: { silent?: boolean; wrap?: (b: Backend) => Backend } = {}): Promise<Opened> {
  const spec = parseLocation(ctx.g.repo, ctx.g.env);
  const opened = await openBackend(spec);
  const backend = opts.wrap ? opts.wrap(opened) : opened;
  const password = await readPassword(ctx.g);
  const repo = await Repository.open(backend, password, { keyHint: ctx.g.keyHint, signal: ctx.signal });
  repo.compression = ctx.g.compression;
  repo.packSize = ctx.g.packSize;
  if (!ctx.g.quiet && !ctx.g.json && !opts.silent) {
    ctx.out.stdout(`repository ${repo.config.id.slice(0, 8)} opened (repository version ${repo.version}) successfully, password is correct\n`);
  }
  return { repo, spec };
}

/** Runs `fn` holding a lock (unless --no-lock for read-only commands). */
export async function withLock<T>(ctx: Context, repo: Repository, exclusive: boolean, fn: () => Promise<T>, readOnly = false, noLock = false): Promise<T> {
  if (noLock || (readOnly && ctx.g.noLock)) return fn();
  const owner = localOwner();
  const lock = await Lock.acquire(repo, { ...owner, processAlive: isAlive }, exclusive, ctx.signal);
  ignoreHangups();
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/**
 * restic asks whether a lock's process is alive by sending it SIGHUP (lock_unix.go), and a
 * restic process holding a lock ignores SIGHUP: so must we, or `restic unlock` on this host
 * would kill a running `cairn backup`.
 */
function ignoreHangups(): void {
  if (process.listenerCount('SIGHUP') === 0) process.on('SIGHUP', () => {});
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
