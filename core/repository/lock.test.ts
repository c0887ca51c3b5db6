import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import type { Backend } from '../backend/backend';
import { isCairnError } from '../errors';
import { GoTime } from '../data/go-time';
import { Repository } from './repository';
import {
  decodeLock,
  describeLock,
  encodeLock,
  isStale,
  listLocks,
  Lock,
  removeLocks,
  REFRESH_EVERY_MS,
  STALE_AFTER_MS,
  type LockInfo,
  type LockOwner,
} from './lock';

const me: LockOwner = { hostname: 'host-a', username: 'alice', pid: 1000, uid: 1000, gid: 100, processAlive: () => true };
const other: LockOwner = { hostname: 'host-b', username: 'bob', pid: 2000, processAlive: () => true };

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** Writes a lock file as another process would. */
async function plantLock(repo: Repository, info: Partial<LockInfo> & { time: GoTime }): Promise<string> {
  const l: LockInfo = { exclusive: false, hostname: 'host-b', username: 'bob', pid: 2000, ...info };
  return repo.saveJSON('locks', encodeLock(l));
}

const minutesAgo = (m: number) => GoTime.fromDate(new Date(Date.now() - m * 60_000));

describe('locks', () => {
  beforeAll(initEngine);
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes restic's lock JSON (Go struct order, uid/gid omitted when 0) as an unpacked file", async () => {
    const { repo } = await memRepo();
    const lock = await Lock.acquire(repo, me, false);
    const j = (await repo.loadJSON('locks', lock.id)) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual(['time', 'exclusive', 'hostname', 'username', 'pid', 'uid', 'gid']);
    expect(j).toMatchObject({ exclusive: false, hostname: 'host-a', username: 'alice', pid: 1000, uid: 1000, gid: 100 });
    expect(j.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    expect(Math.abs(GoTime.parse(j.time as string).unixMillis() - Date.now())).toBeLessThan(60_000);
    await lock.release();
    const bare = encodeLock({ time: GoTime.parse('2024-01-02T03:04:05.5Z'), exclusive: true, hostname: 'h', username: 'u', pid: 7, uid: 0, gid: 0 });
    expect(bare).toBe('{"time":"2024-01-02T03:04:05.5Z","exclusive":true,"hostname":"h","username":"u","pid":7}');
  });

  it('reads a lock restic wrote, and reports malformed ones', () => {
    const j = JSON.parse('{"time":"2024-05-06T07:08:09.123456789+02:00","exclusive":true,"hostname":"nas","username":"root","pid":4242,"uid":1,"gid":2}');
    const l = decodeLock(j, 'ab'.repeat(32));
    expect(l).toMatchObject({ exclusive: true, hostname: 'nas', username: 'root', pid: 4242, uid: 1, gid: 2 });
    expect(l.time.format()).toBe('2024-05-06T07:08:09.123456789+02:00');
    expect(decodeLock({ time: '2024-05-06T07:08:09Z' }, 'x')).toMatchObject({ exclusive: false, hostname: '', username: '', pid: 0, uid: undefined });
    for (const bad of [null, [], {}, { time: 5 }]) expect(() => decodeLock(bad, 'cd'.repeat(32))).toThrow(/lock cdcdcdcd is malformed/);
  });

  describe('conflicts', () => {
    const cases: [string, boolean, boolean, boolean][] = [
      ['shared after shared', false, false, false],
      ['exclusive after shared', false, true, true],
      ['shared after exclusive', true, false, true],
      ['exclusive after exclusive', true, true, true],
    ];
    it.each(cases)('%s: conflict %s', async (_what, firstExclusive, secondExclusive, conflict) => {
      const { repo } = await memRepo();
      const first = await Lock.acquire(repo, other, firstExclusive);
      const e = await rejection(Lock.acquire(repo, me, secondExclusive).then((l) => l.release()));
      if (conflict) {
        expect(isCairnError(e, 'LOCKED')).toBe(true);
        const err = e as { retryable: boolean; detail: { lock: string }; message: string };
        expect(err.retryable).toBe(true);
        expect(err.detail.lock).toBe(first.id);
        expect(err.message).toMatch(
          new RegExp(`${firstExclusive ? 'exclusive' : 'non-exclusive'} lock ${first.id.slice(0, 8)} held by PID 2000 on host-b by bob`),
        );
        // The failed attempt left no lock of its own behind.
        expect((await listLocks(repo)).map((l) => l.id)).toEqual([first.id]);
      } else {
        expect(e).toBeUndefined();
      }
      await first.release();
    });

    it('a lock that appears while ours is being written makes us back off and remove ours', async () => {
      const { repo, backend } = await memRepo();
      // A backend on which, the moment our lock lands, someone else's exclusive lock lands too.
      let planted: string | undefined;
      const racing: Backend = Object.assign(Object.create(Object.getPrototypeOf(backend)) as Backend, {
        location: backend.location,
        connections: backend.connections,
        close: () => backend.close(),
        load: backend.load.bind(backend),
        list: backend.list.bind(backend),
        stat: backend.stat.bind(backend),
        remove: backend.remove.bind(backend),
        save: async (h: Parameters<Backend['save']>[0], d: Uint8Array, o?: Parameters<Backend['save']>[2]) => {
          await backend.save(h, d, o);
          if (h.type === 'locks' && !planted) planted = await plantLock(repo, { time: minutesAgo(0), exclusive: true });
        },
      });
      const racingRepo = new Repository(racing, repo.key, repo.keyID, repo.config);
      const e = await rejection(Lock.acquire(racingRepo, me, false));
      expect(isCairnError(e, 'LOCKED')).toBe(true);
      expect((await listLocks(repo)).map((l) => l.id)).toEqual([planted]);
    });
  });

  describe('stale locks', () => {
    it('isStale: older than 30 minutes, or same host with a dead PID', () => {
      const now = Date.parse('2024-06-01T12:00:00Z');
      const at = (ms: number) => GoTime.fromDate(new Date(now - ms));
      const l = (ms: number, hostname: string, pid = 5): LockInfo => ({ time: at(ms), exclusive: false, hostname, username: 'u', pid });
      const alive = { hostname: 'h', processAlive: () => true };
      const dead = { hostname: 'h', processAlive: (pid: number) => pid !== 5 };
      expect(isStale(l(STALE_AFTER_MS + 1, 'x'), alive, now)).toBe(true);
      expect(isStale(l(STALE_AFTER_MS - 1000, 'x'), alive, now)).toBe(false);
      expect(isStale(l(0, 'h'), dead, now)).toBe(true);
      expect(isStale(l(0, 'h', 6), dead, now)).toBe(false);
      expect(isStale(l(0, 'other-host'), dead, now)).toBe(false); // another host's PID means nothing here
      expect(isStale(l(0, 'h'), { hostname: 'h' }, now)).toBe(false); // no way to probe (browsers)
      expect(isStale(l(-60_000, 'x'), alive, now)).toBe(false); // clock skew: from the future
    });

    it('acquire ignores a lock older than 30 minutes', async () => {
      const { repo } = await memRepo();
      await plantLock(repo, { time: minutesAgo(31), exclusive: true });
      const lock = await Lock.acquire(repo, me, true);
      await lock.release();
      await plantLock(repo, { time: minutesAgo(29), exclusive: true });
      expect(isCairnError(await rejection(Lock.acquire(repo, me, false)), 'LOCKED')).toBe(true);
    });

    it("acquire ignores a lock of this host whose process is gone, but not another host's", async () => {
      const { repo } = await memRepo();
      const probe = vi.fn((pid: number) => pid !== 4321);
      const owner = { ...me, processAlive: probe };
      await plantLock(repo, { time: minutesAgo(1), exclusive: true, hostname: 'host-a', pid: 4321 });
      const lock = await Lock.acquire(repo, owner, true);
      expect(probe).toHaveBeenCalledWith(4321);
      await lock.release();
      await plantLock(repo, { time: minutesAgo(1), exclusive: true, hostname: 'host-c', pid: 4321 });
      expect(isCairnError(await rejection(Lock.acquire(repo, owner, false)), 'LOCKED')).toBe(true);
    });

    it('removeLocks removes stale and unreadable locks, or all of them', async () => {
      const { repo } = await memRepo();
      const old = await plantLock(repo, { time: minutesAgo(45) });
      const fresh = await plantLock(repo, { time: minutesAgo(1) });
      const junk = await repo.saveJSON('locks', '{"time":"yesterday"}');
      const removed = await removeLocks(repo, me);
      expect(removed.sort()).toEqual([old, junk].sort());
      expect((await listLocks(repo)).map((l) => l.id)).toEqual([fresh]);
      expect(await removeLocks(repo, me, { all: true })).toEqual([fresh]);
      expect(await listLocks(repo)).toEqual([]);
    });

    it('removeLocks with ownHost removes only the stale locks of this host (its processes that are gone)', async () => {
      const { repo } = await memRepo();
      const gone = await plantLock(repo, { time: minutesAgo(1), hostname: 'host-a', pid: 4321 });
      const running = await plantLock(repo, { time: minutesAgo(1), hostname: 'host-a', pid: 1000 });
      const elsewhereOld = await plantLock(repo, { time: minutesAgo(45), hostname: 'host-b' });
      const junk = await repo.saveJSON('locks', '{"time":"yesterday"}');
      const owner = { ...me, processAlive: (pid: number) => pid === 1000 };
      expect(await removeLocks(repo, owner, { ownHost: true })).toEqual([gone]);
      expect((await listLocks(repo)).map((l) => l.id).sort()).toEqual([running, elsewhereOld, junk].sort());
    });

    it('an unreadable lock does not block (restic 0.14 ignores locks it cannot load) but is listed with its error', async () => {
      const { repo, backend } = await memRepo();
      const junk = await repo.saveJSON('locks', 'not json at all');
      await backend.save({ type: 'locks', name: 'ab'.repeat(32) }, new Uint8Array([1, 2, 3]));
      const listed = await listLocks(repo);
      expect(listed.map((l) => l.id).sort()).toEqual([junk, 'ab'.repeat(32)].sort());
      expect(listed.every((l) => l.error !== undefined && l.lock === undefined)).toBe(true);
      const lock = await Lock.acquire(repo, me, true);
      await lock.release();
    });

    it('a lock file of a megabyte is listed as unreadable without being read', async () => {
      const { repo, backend } = await memRepo();
      const id = 'cd'.repeat(32);
      await backend.save({ type: 'locks', name: id }, new Uint8Array(1 << 20));
      const load = vi.spyOn(backend, 'load');
      const [listed] = await listLocks(repo);
      expect(listed).toMatchObject({ id, error: expect.objectContaining({ message: `lock ${id.slice(0, 8)}: 1048576 bytes, not a lock file` }) });
      expect(load).not.toHaveBeenCalled();
    });
  });

  describe('refresh and release', () => {
    it('refresh writes a new lock file with a newer time and removes the old one', async () => {
      const { repo } = await memRepo();
      const lock = await Lock.acquire(repo, me, true);
      const first = lock.id;
      const t1 = (await listLocks(repo))[0]!.lock!.time;
      await new Promise((r) => setTimeout(r, 5));
      await lock.refresh();
      expect(lock.id).not.toBe(first);
      const after = await listLocks(repo);
      expect(after.map((l) => l.id)).toEqual([lock.id]);
      expect(after[0]!.lock!.time.compare(t1)).toBeGreaterThan(0);
      expect(after[0]!.lock).toMatchObject({ exclusive: true, hostname: 'host-a', pid: 1000 });
      await lock.release();
      expect(await listLocks(repo)).toEqual([]);
    });

    it('release removes the lock file; releasing twice or after someone removed it is fine', async () => {
      const { repo, backend } = await memRepo();
      const a = await Lock.acquire(repo, me, false);
      const b = await Lock.acquire(repo, other, false);
      await a.release();
      expect((await listLocks(repo)).map((l) => l.id)).toEqual([b.id]);
      await a.release();
      await backend.remove({ type: 'locks', name: b.id });
      await b.release();
    });

    it('refreshes every 5 minutes on its own until released', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
      const { repo } = await memRepo();
      const lock = await Lock.acquire(repo, me, false);
      const refresh = vi.spyOn(lock, 'refresh');
      const ids = [lock.id];
      await vi.advanceTimersByTimeAsync(REFRESH_EVERY_MS - 1000);
      expect(refresh).not.toHaveBeenCalled();
      for (let i = 1; i <= 3; i++) {
        await vi.advanceTimersByTimeAsync(i === 1 ? 1000 : REFRESH_EVERY_MS);
        expect(refresh).toHaveBeenCalledTimes(i);
        await refresh.mock.results[i - 1]!.value;
        ids.push(lock.id);
      }
      expect(new Set(ids).size).toBe(4);
      const listed = await listLocks(repo);
      expect(listed.map((l) => l.id)).toEqual([lock.id]);
      // The lock's time follows the (fake) clock: fresh, not 15 minutes old.
      expect(isStale(listed[0]!.lock!, me)).toBe(false);
      expect(Date.now() - listed[0]!.lock!.time.unixMillis()).toBeLessThan(1000);
      await lock.release();
      const before = lock.id;
      await vi.advanceTimersByTimeAsync(3 * REFRESH_EVERY_MS);
      expect(refresh).toHaveBeenCalledTimes(3); // no refresh after release
      expect(lock.id).toBe(before);
      expect(await listLocks(repo)).toEqual([]);
    });
  });

  it("describeLock reads like restic's message", () => {
    const l: LockInfo = { time: GoTime.fromDate(new Date(Date.now() - 90_000)), exclusive: true, hostname: 'nas', username: 'root', pid: 12, uid: 3, gid: 4 };
    expect(describeLock('0123456789'.repeat(7).slice(0, 64), l)).toMatch(
      /^exclusive lock 01234567 held by PID 12 on nas by root \(UID 3, GID 4\), created at .+ \((89|90|91)s ago\)$/,
    );
  });
});
