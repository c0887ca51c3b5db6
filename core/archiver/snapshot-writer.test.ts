import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { GoTime } from '../data/go-time';
import { loadSnapshot } from '../repository/snapshots';
import { BackupStats } from './backup-stats';
import { makeSnapshot, PROGRAM_VERSION, saveSnapshot } from './snapshot-writer';

const tree = 'ab'.repeat(32);

describe('snapshot writer', () => {
  beforeAll(initEngine);

  it('takes the backup start as time unless given, leaves empty tags and excludes out, and names the parent', () => {
    const summary = new BackupStats().summary(GoTime.fromMillis(5000), GoTime.fromMillis(6000));
    const sn = makeSnapshot({ hostname: 'h', tags: [], excludes: [] }, tree, ['/a'], summary, 'cd'.repeat(32));
    expect(sn).toMatchObject({ time: summary.backupStart, tree, paths: ['/a'], hostname: 'h', parent: 'cd'.repeat(32), programVersion: PROGRAM_VERSION });
    expect(sn.tags).toBeUndefined();
    expect(sn.excludes).toBeUndefined();
    const t = GoTime.fromMillis(1);
    expect(makeSnapshot({ hostname: 'h', time: t, tags: ['x'], excludes: ['*.tmp'], programVersion: 'p' }, tree, [], summary)).toMatchObject({
      time: t,
      tags: ['x'],
      excludes: ['*.tmp'],
      programVersion: 'p',
      parent: undefined,
    });
  });

  it('saves a snapshot file that reads back the same', async () => {
    const { repo } = await memRepo();
    const summary = new BackupStats().summary(GoTime.fromMillis(5000), GoTime.fromMillis(6000));
    const sn = makeSnapshot({ hostname: 'h', username: 'u', uid: 1, gid: 2, tags: ['t'] }, tree, ['/a', '/b'], summary);
    const id = await saveSnapshot(repo, sn);
    expect(await loadSnapshot(repo, id)).toMatchObject({ tree, paths: ['/a', '/b'], hostname: 'h', username: 'u', uid: 1, gid: 2, tags: ['t'] });
  });
});
