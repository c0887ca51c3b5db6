// The last step of a backup: the snapshot file, written after the packs and the index that
// lists them (restic's order: a repository is valid whenever a backup stops).

import { encodeSnapshot, type Snapshot, type SnapshotSummary } from '../data/snapshot';
import type { GoTime } from '../data/go-time';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';

export const PROGRAM_VERSION = 'cairn 0.1.0';

/** What a backup's caller says about its snapshot. */
export interface SnapshotFields {
  hostname: string;
  username?: string;
  uid?: number;
  gid?: number;
  tags?: string[];
  /** The exclude patterns, as given. */
  excludes?: string[];
  /** The snapshot's time (default: when the backup started). */
  time?: GoTime;
  programVersion?: string;
}

export function makeSnapshot(fields: SnapshotFields, tree: ID, paths: string[], summary: SnapshotSummary, parent?: ID): Snapshot {
  return {
    time: fields.time ?? summary.backupStart,
    parent,
    tree,
    paths,
    hostname: fields.hostname,
    username: fields.username,
    uid: fields.uid,
    gid: fields.gid,
    excludes: fields.excludes?.length ? fields.excludes : undefined,
    tags: fields.tags?.length ? fields.tags : undefined,
    programVersion: fields.programVersion ?? PROGRAM_VERSION,
    summary,
  };
}

export function saveSnapshot(repo: Pick<Repository, 'saveJSON'>, snapshot: Snapshot, signal?: AbortSignal): Promise<ID> {
  return repo.saveJSON('snapshots', encodeSnapshot(snapshot), signal);
}
