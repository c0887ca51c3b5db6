// The repository tools' engine modules on in-memory repositories (Node): keys as restic's key
// commands keep them, and forget by rules or by ID under the lock, then prune.

import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { Repository } from '../../core/repository/repository';
import { addRepositoryKey, changePassword, listKeys, removeRepositoryKey, verifyPassword } from './keys';
import { literalPattern } from './selection';
import { forget, previewForget } from './retention';
import { Session } from './session';
import { matchAny, parsePattern } from '../../core/filter/pattern';
import { check } from '../../core/check/check';

const OWNER = { hostname: 'browser-test', username: 'cairn' };

async function session(snapshots = 0) {
  const { repo, backend } = await memRepo();
  for (let i = 0; i < snapshots; i++) {
    const src = new MemSource({ d: { [`f${i}.txt`]: { data: new TextEncoder().encode(`file ${i}\n`) } } });
    await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: OWNER.hostname, targets: ['/d'] });
  }
  return new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false });
}

describe('keys', () => {
  beforeAll(initEngine);

  it('adds a key restic-style, changes the password in use, and each opens the repository', async () => {
    const s = await session();
    const first = s.repo.keyID;
    expect((await listKeys(s)).map((k) => [k.id, k.current])).toEqual([[first, true]]);
    const added = await addRepositoryKey(s, 'second password', OWNER, { username: 'recovery' });
    expect(added).toMatchObject({ username: 'recovery', hostname: OWNER.hostname, current: false, kdf: { N: 32768, r: 8, p: 8 } });
    expect((await Repository.open(s.backend, 'second password')).keyID).toBe(added.id);

    await expect(changePassword(s, 'not the password', 'next', OWNER)).rejects.toMatchObject({ code: 'WRONG_PASSWORD' });
    const changed = await changePassword(s, TEST_PASSWORD, 'the new one', OWNER);
    expect(s.repo.keyID).toBe(changed.id);
    const keys = await listKeys(s);
    expect(keys.map((k) => k.id).sort()).toEqual([added.id, changed.id].sort());
    expect(keys.find((k) => k.current)?.id).toBe(changed.id);
    await expect(Repository.open(s.backend, TEST_PASSWORD)).rejects.toMatchObject({ code: 'WRONG_PASSWORD' });
    expect((await Repository.open(s.backend, 'the new one')).keyID).toBe(changed.id);
    expect(await verifyPassword(s, 'second password')).toBe(added.id);
  });

  it('never removes the last key, and the one in use only when asked', async () => {
    const s = await session();
    const only = s.repo.keyID;
    await expect(removeRepositoryKey(s, only, OWNER, { allowCurrent: true })).rejects.toMatchObject({ code: 'LAST_KEY' });
    const other = await addRepositoryKey(s, 'other', OWNER);
    await expect(removeRepositoryKey(s, only.slice(0, 8), OWNER)).rejects.toMatchObject({ code: 'KEY_IN_USE' });
    await removeRepositoryKey(s, only.slice(0, 8), OWNER, { allowCurrent: true });
    expect((await listKeys(s)).map((k) => k.id)).toEqual([other.id]);
    await expect(removeRepositoryKey(s, other.id, OWNER, { allowCurrent: true })).rejects.toMatchObject({ code: 'LAST_KEY' });
  });
});

describe('forget', () => {
  beforeAll(initEngine);

  it('previews and removes by the rules, refusing an empty policy; removes one snapshot by ID', async () => {
    const s = await session(4);
    const all = await s.snapshots();
    await expect(previewForget(s, {}, OWNER)).rejects.toMatchObject({ code: 'BAD_POLICY' });
    const p = await previewForget(s, { keepLast: '2' }, OWNER, { thisHostOnly: true });
    expect([p.keepCount, p.removeCount]).toEqual([2, 2]);
    expect(p.groups[0]!.keep[0]!.reasons).toEqual(['last snapshot']);
    // Another host's snapshots are outside "this browser's".
    expect((await previewForget(s, { keepLast: '2' }, { ...OWNER, hostname: 'elsewhere' }, { thisHostOnly: true })).groups).toEqual([]);

    const r = await forget(s, { policy: { keepLast: '2' }, thisHostOnly: true }, OWNER, new AbortController().signal);
    expect(r.removed.sort()).toEqual(
      all
        .slice(0, 2)
        .map((e) => e.id)
        .sort(),
    );
    expect((await s.snapshots()).map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id));

    // One more by ID, then prune (the preview estimated space to free): the rest checks clean.
    const estimate = (await previewForget(s, { keepLast: '1' }, OWNER, { withPrune: true })).prune!;
    expect(estimate.bytesFreed).toBeGreaterThan(0);
    const one = await forget(s, { ids: [all[2]!.id.slice(0, 8)], prune: true }, OWNER, new AbortController().signal);
    expect(one.removed).toEqual([all[2]!.id]);
    expect(one.pruned!.packsDeleted + one.pruned!.packsRepacked).toBeGreaterThan(0);
    expect(one.pruned!.bytesFreed).toBeGreaterThan(0);
    expect((await s.snapshots()).map((e) => e.id)).toEqual([all[3]!.id]);
    expect(await s.repo.listIDs('locks')).toEqual([]);
    const fresh = new Repository(s.backend, s.repo.key, s.repo.keyID, s.repo.config);
    expect((await check(fresh, { readData: true })).problems).toEqual([]);
  });
});

describe('selection patterns', () => {
  it('a literal name pattern matches only that name, wildcards and all', () => {
    const p = literalPattern('a*[b]?.txt');
    expect(matchAny([p], ['a*[b]?.txt'])).toBe(true);
    expect(matchAny([p], ['aXb1.txt'])).toBe(false);
    expect(matchAny([p], ['a*[b]?.txt', 'inside'])).toBe(true);
    expect(matchAny([p], ['sub', 'a*[b]?.txt'])).toBe(false);
    expect(matchAny([parsePattern('*.bin'), p], ['x.bin'])).toBe(true);
  });
});
