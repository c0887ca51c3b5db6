import { describe, expect, it } from 'vitest';
import { GoTime } from '../data/go-time';
import { ProgressTracker } from '../progress';
import { CairnError } from '../errors';
import { BackupStats, NO_ITEM_STATS } from './backup-stats';
import { WarningLog } from './warnings';

describe('BackupStats', () => {
  it('sums into the snapshot summary as restic does: data added counts data and trees', () => {
    const s = new BackupStats();
    s.file('new', 100, { ...NO_ITEM_STATS, dataBlobs: 2, dataSize: 100, dataSizeInRepo: 70 });
    s.file('changed', 50, { ...NO_ITEM_STATS, dataBlobs: 1, dataSize: 50, dataSizeInRepo: 40 });
    s.file('unmodified', 7);
    s.dir('new');
    s.dir('unmodified');
    s.add({ ...NO_ITEM_STATS, treeBlobs: 1, treeSize: 300, treeSizeInRepo: 200 });
    const start = GoTime.fromMillis(1000),
      end = GoTime.fromMillis(2000);
    expect(s.summary(start, end)).toEqual({
      backupStart: start,
      backupEnd: end,
      filesNew: 1,
      filesChanged: 1,
      filesUnmodified: 1,
      dirsNew: 1,
      dirsChanged: 0,
      dirsUnmodified: 1,
      dataBlobs: 3,
      treeBlobs: 1,
      dataAdded: 450,
      dataAddedPacked: 310,
      totalFilesProcessed: 3, // regular files only
      totalBytesProcessed: 157,
    });
  });
});

describe('WarningLog', () => {
  it('keeps each warning with its code, counts it as a progress error and tells the listener', () => {
    const progress = new ProgressTracker('x');
    const heard: string[] = [];
    const log = new WarningLog(progress, (w) => heard.push(w.path));
    log.warn('/a', new CairnError('SOURCE_READ', '/a: permission denied'));
    log.warn('/b', new Error('odd'));
    expect(log.list).toEqual([
      { path: '/a', code: 'SOURCE_READ', message: '/a: permission denied' },
      { path: '/b', code: 'INTERNAL', message: 'odd' },
    ]);
    expect(progress.errors).toBe(2);
    expect(heard).toEqual(['/a', '/b']);
  });
});
