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
import type { Handle, RequestOptions, SaveData } from '../../core/backend/backend';
import { MemoryBackend } from '../../core/backend/mem';
import { CairnError } from '../../core/errors';

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

describe("forget within one plan's group", () => {
  beforeAll(initEngine);

  async function groups() {
    const { repo, backend } = await memRepo();
    const snap = async (hostname: string, targets: string[], tags: string[], i: number) => {
      const tree: Record<string, { data: Uint8Array }> = { [`f${i}.txt`]: { data: new TextEncoder().encode(`file ${i}\n`) } };
      const src = new MemSource(Object.fromEntries(targets.map((t) => [t.slice(1), tree])));
      return (await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname, targets, tags })).id;
    };
    const ids: Record<string, string[]> = { plan: [], moreTags: [], otherTags: [], otherHost: [], morePaths: [] };
    for (let i = 0; i < 3; i++) {
      ids.plan!.push(await snap('laptop', ['/d'], ['daily'], i));
      ids.moreTags!.push(await snap('laptop', ['/d'], ['daily', 'extra'], 10 + i));
      ids.otherTags!.push(await snap('laptop', ['/d'], [], 20 + i));
      ids.otherHost!.push(await snap('desk', ['/d'], ['daily'], 30 + i));
      ids.morePaths!.push(await snap('laptop', ['/d', '/e'], ['daily'], 40 + i));
    }
    const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false });
    return { s, ids };
  }

  it('removes only from the host/paths group holding every tag of the plan; prunes only when something was removed', async () => {
    const { s, ids } = await groups();
    const group = { host: 'laptop', paths: ['/d'], tags: ['daily'] };
    const p = await previewForget(s, { keepLast: '1' }, OWNER, { group });
    expect(p.host).toBe('laptop');
    // --tag daily takes the plan's snapshots and those with more tags (restic's filter), in one host/paths group.
    expect(p.groups.map((g) => g.label)).toEqual(['host laptop, path [/d]']);
    expect([p.keepCount, p.removeCount]).toEqual([1, 5]);

    const r = await forget(s, { policy: { keepLast: '1' }, group, prune: true }, OWNER, new AbortController().signal);
    expect(r.removed.sort()).toEqual([...ids.plan!, ...ids.moreTags!].filter((id) => id !== ids.moreTags![2]).sort());
    expect(r.pruned?.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.pruneError).toBeUndefined();
    const left = (await s.snapshots()).map((e) => e.id).sort();
    expect(left).toEqual([ids.moreTags![2]!, ...ids.otherTags!, ...ids.otherHost!, ...ids.morePaths!].sort());

    // Nothing more to remove: no prune, as restic's forget --prune.
    const again = await forget(s, { policy: { keepLast: '1' }, group, prune: true }, OWNER, new AbortController().signal);
    expect([again.removed, again.pruned, again.forgetMs >= 0]).toEqual([[], undefined, true]);
  });

  it('"this browser" means the host name the page gives', async () => {
    const { s } = await groups();
    const p = await previewForget(s, { keepLast: '1' }, OWNER, { thisHostOnly: true, host: 'desk' });
    expect([p.host, p.groups.map((g) => g.label)]).toEqual(['desk', ['host desk, path [/d]']]);
  });
});

describe('forget, then a prune that fails', () => {
  beforeAll(initEngine);

  it("reports the removal and the prune's failure apart, and leaves no lock", async () => {
    // Prune writes the new index before it deletes: refused, the prune fails after the snapshot is gone.
    class RefusingIndex extends MemoryBackend {
      refuse = false;
      override async save(h: Handle, data: SaveData, opts?: RequestOptions): Promise<void> {
        if (this.refuse && h.type === 'index') throw new CairnError('NETWORK', 'index upload refused');
        return super.save(h, data, opts);
      }
    }
    const backend = new RefusingIndex();
    const { repo } = await memRepo({ backend });
    for (let i = 0; i < 2; i++) {
      const src = new MemSource({ d: { [`f${i}.txt`]: { data: new TextEncoder().encode(`file ${i}\n`.repeat(1000)) } } });
      await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: OWNER.hostname, targets: ['/d'] });
    }
    const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false });
    const first = (await s.snapshots())[0]!.id;
    backend.refuse = true;
    const r = await forget(s, { ids: [first], prune: true }, OWNER, new AbortController().signal);
    expect(r.removed).toEqual([first]);
    expect(r.pruned).toBeUndefined();
    expect(r.pruneError).toMatchObject({ code: 'NETWORK', message: 'index upload refused' });
    expect(await s.repo.listIDs('locks')).toEqual([]);
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
