// Engine data → the plain, cloneable views the page gets (workers/api.ts).

import type { Node } from '../../core/data/node';
import type { Snapshot, SnapshotSummary } from '../../core/data/snapshot';
import type { SnapshotEntry } from '../../core/repository/snapshots';
import type { NodeView, SnapshotSummaryView, SnapshotView } from '../api';

export function summaryView(s: SnapshotSummary): SnapshotSummaryView {
  return {
    filesNew: s.filesNew,
    filesChanged: s.filesChanged,
    filesUnmodified: s.filesUnmodified,
    dirsNew: s.dirsNew,
    dirsChanged: s.dirsChanged,
    dirsUnmodified: s.dirsUnmodified,
    dataBlobs: s.dataBlobs,
    treeBlobs: s.treeBlobs,
    dataAdded: s.dataAdded,
    dataAddedPacked: s.dataAddedPacked,
    totalFilesProcessed: s.totalFilesProcessed,
    totalBytesProcessed: s.totalBytesProcessed,
    backupStart: s.backupStart.format(),
    backupEnd: s.backupEnd.format(),
  };
}

export function snapshotView(e: SnapshotEntry): SnapshotView {
  const sn: Snapshot = e.snapshot;
  return {
    id: e.id,
    shortId: e.id.slice(0, 8),
    time: sn.time.format(),
    hostname: sn.hostname ?? '',
    username: sn.username ?? '',
    tags: sn.tags ?? [],
    paths: sn.paths,
    size: sn.summary?.totalBytesProcessed,
    summary: sn.summary ? summaryView(sn.summary) : undefined,
    parent: sn.parent,
    programVersion: sn.programVersion,
  };
}

export function nodeView(node: Node, path: string[]): NodeView {
  return {
    name: node.name,
    type: node.type,
    size: node.size ?? 0,
    mtime: node.mtime.format(),
    mode: node.mode,
    path,
    linkTarget: node.type === 'symlink' ? node.linkTarget : undefined,
  };
}

/** Directories first, then by name (byte order, as restic sorts trees). */
export function byDirThenName(a: NodeView, b: NodeView): number {
  if ((a.type === 'dir') !== (b.type === 'dir')) return a.type === 'dir' ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
