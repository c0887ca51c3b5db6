// restic 0.17's Snapshot and SnapshotSummary structs (snapshot.ts writes them, snapshot-reader.ts
// and the strict reader in snapshot.ts read them); the summary's fields in Go order.

import type { GoTime } from './go-time';
import type { JsonValue } from './json-reader';

export interface Snapshot {
  /** When the backup started, with the local zone offset (forget's buckets use it). */
  time: GoTime;
  parent?: string;
  tree: string;
  paths: string[];
  hostname?: string;
  username?: string;
  uid?: number;
  gid?: number;
  excludes?: string[];
  tags?: string[];
  original?: string;
  programVersion?: string;
  summary?: SnapshotSummary;
  unknown?: [string, JsonValue][];
}

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
