// What a backup counts for its snapshot's summary (restic's archiver.Summary and ItemStats):
// files and dirs by new / changed / unmodified, blobs and bytes added, totals processed. The
// units that save files and trees add to one BackupStats; the snapshot writer reads it once.

import type { GoTime } from '../data/go-time';
import type { SnapshotSummary } from '../data/snapshot';

/** One item's share of what was added (restic ItemStats): data for a file, its tree for a dir. */
export interface ItemStats {
  dataBlobs: number;
  /** Plain bytes of new data blobs. */
  dataSize: number;
  /** Bytes those blobs take in packs. */
  dataSizeInRepo: number;
  treeBlobs: number;
  treeSize: number;
  treeSizeInRepo: number;
}

export const NO_ITEM_STATS: Readonly<ItemStats> = Object.freeze({ dataBlobs: 0, dataSize: 0, dataSizeInRepo: 0, treeBlobs: 0, treeSize: 0, treeSizeInRepo: 0 });

/** A file or directory the backup finished with (restic's CompleteItem, for `-vv` output). */
export interface CompletedItem {
  /** Its path in the snapshot ("/home/u/docs/a.txt"; a directory ends in "/"). */
  path: string;
  type: 'file' | 'dir';
  action: 'new' | 'unchanged' | 'modified';
  stats: ItemStats;
  durationMs: number;
}

export type Change = 'new' | 'changed' | 'unmodified';

export class BackupStats {
  readonly files = { new: 0, changed: 0, unmodified: 0 };
  readonly dirs = { new: 0, changed: 0, unmodified: 0 };
  readonly added: ItemStats = { ...NO_ITEM_STATS };
  /** Regular files processed (restic's TotalFilesProcessed: new + changed + unmodified). */
  filesProcessed = 0;
  bytes = 0;
  /** Files whose contents were read (new or changed). */
  filesRead = 0;

  file(change: Change, size: number, added: ItemStats = NO_ITEM_STATS): void {
    this.files[change === 'new' ? 'new' : change === 'changed' ? 'changed' : 'unmodified']++;
    this.filesProcessed++;
    this.bytes += size;
    this.add(added);
  }

  dir(change: Change): void {
    this.dirs[change === 'new' ? 'new' : change === 'changed' ? 'changed' : 'unmodified']++;
  }

  add(s: ItemStats): void {
    const a = this.added;
    a.dataBlobs += s.dataBlobs;
    a.dataSize += s.dataSize;
    a.dataSizeInRepo += s.dataSizeInRepo;
    a.treeBlobs += s.treeBlobs;
    a.treeSize += s.treeSize;
    a.treeSizeInRepo += s.treeSizeInRepo;
  }

  summary(backupStart: GoTime, backupEnd: GoTime): SnapshotSummary {
    const a = this.added;
    return {
      backupStart,
      backupEnd,
      filesNew: this.files.new,
      filesChanged: this.files.changed,
      filesUnmodified: this.files.unmodified,
      dirsNew: this.dirs.new,
      dirsChanged: this.dirs.changed,
      dirsUnmodified: this.dirs.unmodified,
      dataBlobs: a.dataBlobs,
      treeBlobs: a.treeBlobs,
      dataAdded: a.dataSize + a.treeSize,
      dataAddedPacked: a.dataSizeInRepo + a.treeSizeInRepo,
      totalFilesProcessed: this.filesProcessed,
      totalBytesProcessed: this.bytes,
    };
  }
}
