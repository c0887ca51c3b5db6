// restic's four `stats` counting modes (cmd/restic/cmd_stats.go, 0.18):
// - restore-size: every node of every snapshot (folders and links too) counts as a file; its
//   size counts unless it is a hard link (links > 1) whose (inode, device) was already counted
//   in the same snapshot.
// - files-by-contents: a node counts once per distinct content (its blob ID list); every node
//   without content shares the empty list, so the first one of them counts too.
// - blobs-per-file: for each node with new content, each of its blobs counts once per path
//   (restic keys the path as join(path, name)), with the blob's plain size.
// - raw-data: the distinct blobs the snapshots use, with their stored size; in a v2
//   repository also their size before compression and the compression figures.

import { CairnError } from '../errors';
import type { Node } from '../data/node';
import type { Repository } from '../repository/repository';
import type { SnapshotEntry } from '../repository/snapshots';
import { walk } from '../walker';
import { collectUsedBlobs } from './used-blobs';

export const STATS_MODES = ['restore-size', 'files-by-contents', 'blobs-per-file', 'raw-data'] as const;
export type StatsMode = (typeof STATS_MODES)[number];

export interface Stats {
  snapshots: number;
  totalSize: number;
  totalFileCount: number;
  totalBlobCount: number;
  /** raw-data in a v2 repository: the stored blobs' size had none been compressed. */
  totalUncompressedSize: number;
  compressionRatio: number;
  compressionProgress: number;
  compressionSpaceSaving: number;
}

const CIPHER_OVERHEAD = 32;

export async function snapshotStats(repo: Repository, snapshots: SnapshotEntry[], mode: StatsMode, signal?: AbortSignal): Promise<Stats> {
  const s: Stats = {
    snapshots: snapshots.length,
    totalSize: 0,
    totalFileCount: 0,
    totalBlobCount: 0,
    totalUncompressedSize: 0,
    compressionRatio: 0,
    compressionProgress: 0,
    compressionSpaceSaving: 0,
  };
  if (mode === 'raw-data') {
    await rawData(repo, snapshots, s, signal);
    return s;
  }
  const count = mode === 'restore-size' ? restoreSize(s) : byContents(repo, s, mode === 'blobs-per-file');
  for (const { snapshot } of snapshots) {
    const onNode = count();
    for await (const { path, node } of walk(repo, snapshot.tree, { signal, anyName: true })) onNode(path, node);
  }
  return s;
}

/** One counter per snapshot: hard links are recognised within a snapshot only. */
function restoreSize(s: Stats): () => (path: string[], node: Node) => void {
  return () => {
    const links = new Set<string>();
    return (_path, node) => {
      s.totalFileCount++;
      const size = node.size ?? 0;
      if (node.links === 1 || node.type === 'dir' || !node.inode) {
        s.totalSize += size;
        return;
      }
      const key = `${node.inode}:${node.deviceId ?? 0}`;
      if (links.has(key)) return;
      links.add(key);
      s.totalSize += size;
    };
  };
}

function byContents(repo: Repository, s: Stats, perFile: boolean): () => (path: string[], node: Node) => void {
  const seenContent = new Set<string>();
  const fileBlobs = new Map<string, Set<string>>();
  const onNode = (path: string[], node: Node) => {
    const key = (node.content ?? []).join('');
    if (seenContent.has(key)) return;
    seenContent.add(key);
    if (!perFile) {
      s.totalSize += node.size ?? 0;
      s.totalFileCount++;
      return;
    }
    const at = '/' + [...path, node.name].join('/');
    for (const blob of node.content ?? []) {
      let blobs = fileBlobs.get(at);
      if (!blobs) {
        fileBlobs.set(at, (blobs = new Set()));
        s.totalFileCount++;
      }
      if (blobs.has(blob)) continue;
      const size = repo.index.plainSize('data', blob);
      if (size === undefined) throw new CairnError('BLOB_NOT_FOUND', `blob ${blob} not found for /${path.join('/')}`, { detail: { blob } });
      s.totalSize += size;
      blobs.add(blob);
      s.totalBlobCount++;
    }
  };
  return () => onNode;
}

async function rawData(repo: Repository, snapshots: SnapshotEntry[], s: Stats, signal?: AbortSignal): Promise<void> {
  const used = await collectUsedBlobs(
    repo,
    snapshots.map((e) => e.snapshot.tree),
    undefined,
    signal,
  );
  let compressed = 0;
  let compressedPlain = 0;
  const add = (type: 'tree' | 'data', id: string) => {
    const loc = repo.index.lookup(type, id);
    if (!loc) throw new CairnError('BLOB_NOT_FOUND', `blob ${type}/${id} not found`, { detail: { blob: id } });
    s.totalSize += loc.length;
    s.totalBlobCount++;
    if (repo.version < 2) return;
    const uncompressed = loc.uncompressedLength ? loc.uncompressedLength + CIPHER_OVERHEAD : loc.length;
    s.totalUncompressedSize += uncompressed;
    if (loc.uncompressedLength) {
      compressed += loc.length;
      compressedPlain += uncompressed;
    }
  };
  for (const id of used.trees) add('tree', id);
  for (const id of used.data) add('data', id);
  if (compressed > 0) s.compressionRatio = compressedPlain / compressed;
  if (s.totalUncompressedSize > 0) {
    s.compressionProgress = (compressedPlain / s.totalUncompressedSize) * 100;
    s.compressionSpaceSaving = (1 - s.totalSize / s.totalUncompressedSize) * 100;
  }
}
