import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { encodeSnapshot, GoTime, type Snapshot } from '../data';
import type { Repository } from './repository';
import { findParent, findSnapshot, listSnapshots, loadSnapshot, matches, type SnapshotFilter } from './snapshots';

const TREE = 'ee'.repeat(32);

function snap(over: Partial<Snapshot> & { at: string }): Snapshot {
  const { at, ...rest } = over;
  return { time: GoTime.parse(at), tree: TREE, paths: ['/home/u'], hostname: 'h1', ...rest };
}

async function save(repo: Repository, sn: Snapshot): Promise<string> {
  return repo.saveJSON('snapshots', encodeSnapshot(sn));
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('snapshots', () => {
  beforeAll(initEngine);

  it('lists oldest first by time (not by ID or zone), ties broken by ID', async () => {
    const { repo } = await memRepo();
    const c = await save(repo, snap({ at: '2024-03-01T00:00:00Z' }));
    const a = await save(repo, snap({ at: '2024-01-01T10:00:00+02:00' })); // 08:00Z
    const b = await save(repo, snap({ at: '2024-01-01T09:00:00Z' }));
    const t1 = await save(repo, snap({ at: '2024-02-01T00:00:00Z', tags: ['x'] }));
    const t2 = await save(repo, snap({ at: '2024-02-01T00:00:00Z', tags: ['y'] }));
    const ids = (await listSnapshots(repo)).map((e) => e.id);
    expect(ids).toEqual([a, b, ...[t1, t2].sort(), c]);
  });

  it('skips unreadable snapshots through onError, or throws without it', async () => {
    const { repo } = await memRepo();
    const good = await save(repo, snap({ at: '2024-01-01T00:00:00Z' }));
    const bad = await repo.saveJSON('snapshots', '{"time":"not a time","tree":"x"}');
    const errors: string[] = [];
    const list = await listSnapshots(repo, { onError: (id, e) => errors.push(`${id}:${isCairnError(e) ? e.code : '?'}`) });
    expect(list.map((e) => e.id)).toEqual([good]);
    expect(errors).toEqual([`${bad}:BAD_SNAPSHOT`]);
    const e = await rejection(listSnapshots(repo));
    expect(isCairnError(e, 'BAD_SNAPSHOT')).toBe(true);
    expect((e as Error).message).toMatch(new RegExp(`^snapshot ${bad.slice(0, 8)}: `));
    expect((e as { detail: unknown }).detail).toEqual({ snapshot: bad, damage: 'BAD_SNAPSHOT' });
  });

  it('loadSnapshot returns the decoded snapshot', async () => {
    const { repo } = await memRepo();
    const sn = snap({ at: '2024-01-01T00:00:00.5Z', tags: ['a'], username: 'u' });
    const id = await save(repo, sn);
    const got = await loadSnapshot(repo, id);
    expect(got.time.format()).toBe('2024-01-01T00:00:00.5Z');
    expect(got).toMatchObject({ tree: TREE, paths: ['/home/u'], hostname: 'h1', tags: ['a'], username: 'u' });
  });

  describe('findSnapshot', () => {
    it('latest is the newest matching snapshot', async () => {
      const { repo } = await memRepo();
      const old = await save(repo, snap({ at: '2024-01-01T00:00:00Z', hostname: 'h2' }));
      const mid = await save(repo, snap({ at: '2024-02-01T00:00:00Z' }));
      await save(repo, snap({ at: '2024-03-01T00:00:00Z', hostname: 'h3', paths: ['/srv'] }));
      expect((await findSnapshot(repo, 'latest', { hosts: ['h1', 'h2'] })).id).toBe(mid);
      expect((await findSnapshot(repo, 'latest', { hosts: ['h2'] })).id).toBe(old);
      expect((await findSnapshot(repo, 'latest', { paths: ['/srv'] })).snapshot.hostname).toBe('h3');
      expect(isCairnError(await rejection(findSnapshot(repo, 'latest', { hosts: ['nobody'] })), 'SNAPSHOT_NOT_FOUND')).toBe(true);
    });

    it('latest refuses, naming it, while a snapshot is unreadable (it may be the newest; restic: "Error loading snapshot")', async () => {
      const { repo } = await memRepo();
      const ok = await save(repo, snap({ at: '2024-01-01T00:00:00Z' }));
      const bad = await repo.saveJSON('snapshots', 'garbage');
      const e = await rejection(findSnapshot(repo, 'latest'));
      expect(isCairnError(e, 'BAD_SNAPSHOT') && e.message).toMatch(new RegExp(`^snapshot ${bad.slice(0, 8)}: .*; cannot tell which snapshot is the latest`));
      expect((await findSnapshot(repo, ok.slice(0, 8))).id).toBe(ok);
    });

    it('latest in an empty repository is SNAPSHOT_NOT_FOUND', async () => {
      const { repo } = await memRepo();
      expect(isCairnError(await rejection(findSnapshot(repo, 'latest')), 'SNAPSHOT_NOT_FOUND')).toBe(true);
    });

    it('resolves a unique prefix, refuses an ambiguous one, and reports no match', async () => {
      const { repo } = await memRepo();
      const ids: string[] = [];
      // Enough snapshots that some share a first hex digit.
      for (let i = 0; i < 20; i++) ids.push(await save(repo, snap({ at: `2024-01-${String(i + 1).padStart(2, '0')}T00:00:00Z` })));
      const id = ids[0]!;
      let unique = 1;
      while (ids.filter((x) => x.startsWith(id.slice(0, unique))).length > 1) unique++;
      expect((await findSnapshot(repo, id.slice(0, unique))).id).toBe(id);
      expect((await findSnapshot(repo, id)).id).toBe(id);
      const shared = ids.map((x) => x[0]!).find((c, i, all) => all.indexOf(c) !== i)!;
      expect(isCairnError(await rejection(findSnapshot(repo, shared)), 'AMBIGUOUS_ID')).toBe(true);
      const absent = '0123456789abcdef'
        .split('')
        .map((c) => c.repeat(8))
        .find((p) => !ids.some((x) => x.startsWith(p)))!;
      expect(isCairnError(await rejection(findSnapshot(repo, absent)), 'SNAPSHOT_NOT_FOUND')).toBe(true);
    });

    it.each(['', 'LATEST', id8('G'), id8('A'), 'a'.repeat(65), '../x'])('refuses the malformed reference %j', async (ref) => {
      const { repo } = await memRepo();
      await save(repo, snap({ at: '2024-01-01T00:00:00Z' }));
      expect(isCairnError(await rejection(findSnapshot(repo, ref)), 'SNAPSHOT_NOT_FOUND')).toBe(true);
    });
  });

  describe('matches (restic --host, --path, --tag)', () => {
    const sn = (tags?: string[], hostname = 'h1', paths = ['/a', '/b']): Snapshot => snap({ at: '2024-01-01T00:00:00Z', tags, hostname, paths });
    const cases: [string, Snapshot, SnapshotFilter, boolean][] = [
      ['no filter', sn(), {}, true],
      ['host listed', sn(), { hosts: ['h0', 'h1'] }, true],
      ['host not listed', sn(), { hosts: ['h0'] }, false],
      ['no hostname vs empty host filter entry', snap({ at: '2024-01-01T00:00:00Z', hostname: undefined }), { hosts: [''] }, true],
      ['one of the paths', sn(), { paths: ['/a'] }, true],
      ['all of the paths', sn(), { paths: ['/b', '/a'] }, true],
      ['a path it does not have', sn(), { paths: ['/a', '/c'] }, false],
      ['a parent of its path is not its path', sn(), { paths: ['/'] }, false],
      ['--tag a', sn(['a']), { tags: ['a'] }, true],
      ['--tag a,b needs both', sn(['a']), { tags: ['a,b'] }, false],
      ['--tag a,b with both', sn(['b', 'a', 'z']), { tags: ['a,b'] }, true],
      ['--tag a,b --tag c: second group', sn(['c']), { tags: ['a,b', 'c'] }, true],
      ['--tag a,b --tag c: first group', sn(['a', 'b']), { tags: ['a,b', 'c'] }, true],
      ['--tag a,b --tag c: neither', sn(['a', 'd']), { tags: ['a,b', 'c'] }, false],
      ['untagged snapshot vs --tag a', sn(), { tags: ['a'] }, false],
      ["--tag '' selects untagged snapshots", sn(), { tags: [''] }, true],
      ["--tag '' does not select tagged ones", sn(['a']), { tags: [''] }, false],
      ['whitespace around tags is trimmed', sn(['a', 'b']), { tags: [' a , b '] }, true],
      ['tags are case-sensitive', sn(['A']), { tags: ['a'] }, false],
      ['all filters together', sn(['x', 'y']), { hosts: ['h1'], paths: ['/b'], tags: ['q', 'x,y'] }, true],
      ['all filters, host wrong', sn(['x', 'y']), { hosts: ['h2'], paths: ['/b'], tags: ['x,y'] }, false],
    ];
    it.each(cases)('%s', (_what, s, f, want) => {
      expect(matches(s, f)).toBe(want);
    });
  });

  describe('findParent', () => {
    it('is the newest snapshot of the same host that covers the paths', async () => {
      const { repo } = await memRepo();
      const older = await save(repo, snap({ at: '2024-01-01T00:00:00Z', paths: ['/a', '/b'] }));
      const newer = await save(repo, snap({ at: '2024-02-01T00:00:00Z', paths: ['/b', '/a'] }));
      await save(repo, snap({ at: '2024-03-01T00:00:00Z', paths: ['/a', '/b'], hostname: 'h2' }));
      await save(repo, snap({ at: '2024-04-01T00:00:00Z', paths: ['/c'] }));
      expect((await findParent(repo, 'h1', ['/a', '/b']))?.id).toBe(newer);
      expect((await findParent(repo, 'h1', ['/b', '/a']))?.id).toBe(newer);
      // restic 0.14 (HasPaths): a snapshot of /a and /b is a parent for a backup of /a alone.
      expect((await findParent(repo, 'h1', ['/a']))?.id).toBe(newer);
      expect(await findParent(repo, 'h1', ['/a', '/c'])).toBeUndefined();
      expect(await findParent(repo, 'h9', ['/a'])).toBeUndefined();
      expect(older).not.toBe(newer);
    });

    it('ignores unreadable snapshots and finds none in an empty repository', async () => {
      const { repo } = await memRepo();
      expect(await findParent(repo, 'h1', ['/home/u'])).toBeUndefined();
      const ok = await save(repo, snap({ at: '2024-01-01T00:00:00Z' }));
      await repo.saveJSON('snapshots', '{}');
      expect((await findParent(repo, 'h1', ['/home/u']))?.id).toBe(ok);
    });
  });
});

function id8(c: string): string {
  return c.repeat(8);
}
