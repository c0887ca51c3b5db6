// Repository locks as restic writes them (internal/restic/lock.go, docs/restic-format.md §12):
// an unpacked file {"time","exclusive","hostname","username","pid","uid"?,"gid"?} under
// locks/. Backups hold a non-exclusive lock, check/prune/key removal an exclusive one. A lock
// is refreshed every 5 minutes by writing a new file and deleting the old one; locks older
// than 30 minutes, or from this host with a dead PID, are stale.

import { CairnError, isNotFound } from '../errors';
import { GoTime } from '../data/go-time';
import { isID, type ID } from '../id';
import type { Repository } from './repository';

export interface LockInfo {
  time: GoTime;
  exclusive: boolean;
  hostname: string;
  username: string;
  pid: number;
  uid?: number;
  gid?: number;
}

export interface LockOwner {
  hostname: string;
  username: string;
  pid: number;
  uid?: number;
  gid?: number;
  /** Is a process of this host alive? (Node: kill(pid, 0); browsers: always true.) */
  processAlive?: (pid: number) => boolean;
}

export const STALE_AFTER_MS = 30 * 60_000;
export const REFRESH_EVERY_MS = 5 * 60_000;

export function encodeLock(l: LockInfo): string {
  const o: Record<string, unknown> = { time: l.time.format(), exclusive: l.exclusive, hostname: l.hostname, username: l.username, pid: l.pid };
  if (l.uid) o.uid = l.uid;
  if (l.gid) o.gid = l.gid;
  return JSON.stringify(o);
}

export function decodeLock(j: unknown, id: string): LockInfo {
  const o = j as Record<string, unknown> | null;
  if (!o || typeof o !== 'object' || typeof o.time !== 'string') throw new CairnError('BAD_INDEX', `lock ${id.slice(0, 8)} is malformed`);
  return {
    time: GoTime.parse(o.time),
    exclusive: o.exclusive === true,
    hostname: String(o.hostname ?? ''),
    username: String(o.username ?? ''),
    pid: Number(o.pid ?? 0),
    uid: typeof o.uid === 'number' ? o.uid : undefined,
    gid: typeof o.gid === 'number' ? o.gid : undefined,
  };
}

export function isStale(l: LockInfo, owner: Pick<LockOwner, 'hostname' | 'processAlive'>, now = Date.now()): boolean {
  if (now - l.time.unixMillis() > STALE_AFTER_MS) return true;
  if (l.hostname === owner.hostname && owner.processAlive && !owner.processAlive(l.pid)) return true;
  return false;
}

export function describeLock(id: ID, l: LockInfo): string {
  const ago = Math.max(0, Math.round((Date.now() - l.time.unixMillis()) / 1000));
  return `${l.exclusive ? 'exclusive' : 'non-exclusive'} lock ${id.slice(0, 8)} held by PID ${l.pid} on ${l.hostname} by ${l.username} (UID ${l.uid ?? 0}, GID ${l.gid ?? 0}), created at ${l.time.format()} (${ago}s ago)`;
}

/** Lock files larger than this are not read (restic's are ~200 bytes sealed). */
const MAX_LOCK_FILE = 64 * 1024;

export async function listLocks(repo: Repository, signal?: AbortSignal): Promise<{ id: ID; lock?: LockInfo; error?: unknown }[]> {
  const out: { id: ID; lock?: LockInfo; error?: unknown }[] = [];
  const listed: { id: ID; size: number }[] = [];
  for await (const fi of repo.backend.list('locks', { signal })) if (isID(fi.name)) listed.push({ id: fi.name, size: fi.size });
  for (const { id, size } of listed) {
    if (size > MAX_LOCK_FILE) {
      out.push({ id, error: new CairnError('BAD_INDEX', `lock ${id.slice(0, 8)}: ${size} bytes, not a lock file`, { detail: { lock: id } }) });
      continue;
    }
    try {
      out.push({ id, lock: decodeLock(await repo.loadJSON('locks', id, signal), id) });
    } catch (e) {
      if (isNotFound(e)) continue; // removed meanwhile
      out.push({ id, error: e });
    }
  }
  return out;
}

export class Lock {
  readonly #repo: Repository;
  readonly #info: LockInfo;
  #id: ID;
  #timer: ReturnType<typeof setInterval> | undefined;
  #refreshing: Promise<void> = Promise.resolve();

  private constructor(repo: Repository, info: LockInfo, id: ID) {
    this.#repo = repo;
    this.#info = info;
    this.#id = id;
  }

  get id(): ID {
    return this.#id;
  }

  static async acquire(repo: Repository, owner: LockOwner, exclusive: boolean, signal?: AbortSignal): Promise<Lock> {
    const conflicts = async (ignore?: ID) => {
      for (const { id, lock, error } of await listLocks(repo, signal)) {
        if (id === ignore) continue;
        if (error || !lock) continue; // unreadable locks are not honoured (restic retries, then reports)
        if (isStale(lock, owner)) continue;
        if (exclusive || lock.exclusive) return { id, lock };
      }
      return undefined;
    };
    const locked = (c: { id: ID; lock: LockInfo }) =>
      new CairnError('LOCKED', `repository is already locked: ${describeLock(c.id, c.lock)}`, { detail: { lock: c.id }, retryable: true });
    const before = await conflicts();
    if (before) throw locked(before);
    const info: LockInfo = {
      time: GoTime.fromDate(new Date()),
      exclusive,
      hostname: owner.hostname,
      username: owner.username,
      pid: owner.pid,
      uid: owner.uid,
      gid: owner.gid,
    };
    const id = await repo.saveJSON('locks', encodeLock(info), signal);
    const lock = new Lock(repo, info, id);
    // Someone may have locked at the same moment: look again, and back off if so.
    const after = await conflicts(id);
    if (after) {
      await lock.release();
      throw locked(after);
    }
    lock.#timer = setInterval(() => void lock.refresh(), REFRESH_EVERY_MS);
    (lock.#timer as { unref?: () => void }).unref?.();
    return lock;
  }

  /** Writes a fresh lock file and removes the old one (the lock's ID changes). */
  refresh(): Promise<void> {
    this.#refreshing = this.#refreshing
      .then(async () => {
        const info = { ...this.#info, time: GoTime.fromDate(new Date()) };
        const old = this.#id;
        this.#id = await this.#repo.saveJSON('locks', encodeLock(info));
        await this.#repo.backend.remove({ type: 'locks', name: old }).catch(() => {});
      })
      .catch(() => {});
    return this.#refreshing;
  }

  /**
   * Removes the lock. With `signal` (an interrupted command's deadline), gives up when it
   * aborts: a lock left behind goes stale, a command that never ends helps no one.
   */
  async release(signal?: AbortSignal): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await (signal ? Promise.race([this.#refreshing, aborted(signal)]) : this.#refreshing).catch(() => {});
    await this.#repo.backend.remove({ type: 'locks', name: this.#id }, { signal }).catch((e) => {
      if (!isNotFound(e) && !signal?.aborted) throw e;
    });
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * Removes stale locks (restic unlock), or all with `all`; with `ownHost`, only the stale locks
 * of the owner's host (what its processes that are gone left behind). Returns the removed IDs.
 */
export async function removeLocks(
  repo: Repository,
  owner: Pick<LockOwner, 'hostname' | 'processAlive'>,
  opts: { all?: boolean; ownHost?: boolean } = {},
): Promise<ID[]> {
  const removed: ID[] = [];
  for (const { id, lock } of await listLocks(repo)) {
    if (opts.ownHost && lock?.hostname !== owner.hostname) continue;
    if (opts.all || !lock || isStale(lock, owner)) {
      await repo.backend.remove({ type: 'locks', name: id }).catch(() => {});
      removed.push(id);
    }
  }
  return removed;
}
