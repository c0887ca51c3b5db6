// restic 0.17's SnapshotSummary: the Go struct's fields in order (snapshot.ts writes them,
// snapshot-reader.ts and the strict reader read them).

import type { GoTime } from './go-time';

export interface SnapshotSummary {
  backupStart: GoTime;
  backupEnd: GoTime;
  filesNew: number;
  filesChanged: number;
  filesUnmodified: number;
  dirsNew: number;
  dirsChanged: number;
  dirsUnmodified: number;
  dataBlobs: number;
  treeBlobs: number;
  dataAdded: number;
  dataAddedPacked: number;
  totalFilesProcessed: number;
  totalBytesProcessed: number;
}

// [JSON key, property, Go kind] in Go struct order.
export const SUMMARY_FIELDS = [
  ['files_new', 'filesNew', 'uint'],
  ['files_changed', 'filesChanged', 'uint'],
  ['files_unmodified', 'filesUnmodified', 'uint'],
  ['dirs_new', 'dirsNew', 'uint'],
  ['dirs_changed', 'dirsChanged', 'uint'],
  ['dirs_unmodified', 'dirsUnmodified', 'uint'],
  ['data_blobs', 'dataBlobs', 'int'],
  ['tree_blobs', 'treeBlobs', 'int'],
  ['data_added', 'dataAdded', 'uint'],
  ['data_added_packed', 'dataAddedPacked', 'uint'],
  ['total_files_processed', 'totalFilesProcessed', 'uint'],
  ['total_bytes_processed', 'totalBytesProcessed', 'uint'],
] as const;
