// A backup from the browser: the archiver runs here (the coordinator), file contents are read,
// chunked, sealed and uploaded by the file-saver workers. The repository is locked
// non-exclusively for the duration, as restic does (the lock refreshes itself). What a backup
// that a closed tab cut short left behind is taken up first (./pack-journal.ts).

import { backup as runBackup } from '../../core/archiver/archiver';
import type { SourceFS } from '../../core/archiver/source';
import { GoTime } from '../../core/data/go-time';
import type { ProgressSnapshot } from '../../core/progress';
import { Lock } from '../../core/repository/lock';
import { parentAmong } from '../../core/repository/snapshots';
import { excludeMatcher } from './excludes';
import type { BackupRequest, BackupResultView } from '../api';
import { browserPool, saverWorkerCount, takeSavers, type BrowserPoolOptions } from '../pool/browser-pool';
import { fileListSource, fileListSourceOf } from '../source/file-list-source';
import { requestMetadata, type ServedFileRef } from '../source/file-server';
import { handleSource } from '../source/handle-source';
import { multiSource } from '../source/multi-source';
import { withFolderTimes, type PreviousFolder, type PreviousFolders } from '../source/folder-times';
import type { Node } from '../../core/data/node';
import type { Owner } from './open';
import { adoptLeftoverPacks, engineOwner, packJournal, removeDeadEngineLocks } from './pack-journal';
import type { Session } from './session';
import { summaryView } from './views';

/** The source of a request, and the targets to back up. */
export function sourceFor(req: BackupRequest): SourceFS & { targets: string[] } {
  const src = req.source;
  const one = (s: SourceFS & { target: string }) => Object.assign(s, { targets: [s.target] });
  if (src.kind === 'handle') return one(handleSource(src.handle));
  if (src.kind === 'handles') return multiSource(src.handles.map((h) => handleSource(h)));
  if (src.kind === 'served-files')
    return one(
      fileListSourceOf(
        src.relativePaths,
        requestMetadata(src.server, src.relativePaths.length),
        (i) => ({ served: i }) satisfies ServedFileRef,
        excludeMatcher(req.excludes ?? []),
      ),
    );
  return one(fileListSource(src.files, src.relativePaths));
}

/**
 * Folders as the parent snapshot holds them — picked by the archiver's rule
 * (core/repository/snapshots.ts parentAmong) from the session's snapshot list — read through
 * the session's tree cache. Undefined without a parent (or with --force).
 */
async function previousFolders(s: Session, hostname: string, paths: string[], force: boolean | undefined): Promise<PreviousFolders | undefined> {
  if (force) return undefined;
  const parent = parentAmong(await s.snapshots(), hostname, paths);
  if (!parent) return undefined;
  const seen = new Map<string, Promise<PreviousFolder | undefined>>();
  const at = async (path: string, signal?: AbortSignal): Promise<PreviousFolder | undefined> => {
    let tree = parent.snapshot.tree;
    let node: Node | undefined;
    for (const name of path.split('/').filter(Boolean)) {
      node = (await s.tree(tree, signal)).nodes.find((n) => n.name === name);
      if (node?.type !== 'dir' || !node.subtree) return undefined;
      tree = node.subtree;
    }
    if (!node) return undefined;
    return { mtime: node.mtime, names: (await s.tree(tree, signal)).nodes.map((n) => n.name) };
  };
  return (path, signal) => {
    let p = seen.get(path);
    if (!p) seen.set(path, (p = at(path, signal)));
    return p;
  };
}

export interface BackupRun {
  owner: Owner;
  signal: AbortSignal;
  onProgress?: (p: ProgressSnapshot) => void;
  pool?: Omit<BrowserPoolOptions, 'location'>;
}

export async function backup(s: Session, req: BackupRequest, run: BackupRun): Promise<BackupResultView & { bytes: number }> {
  s.requireOnline('a backup');
  const time = GoTime.fromDate(new Date());
  const hostname = req.hostname?.trim() || run.owner.hostname;
  const excludes = (req.excludes ?? []).map((p) => p.trim()).filter(Boolean);
  const exclude = excludeMatcher(excludes);
  const started = performance.now();
  // The savers first: those standing by, or new ones that load while the lock is taken and the
  // folder walked (browser-pool.ts, spawnSavers).
  const spares = takeSavers(saverWorkerCount(run.pool));
  try {
    const owner = await engineOwner(run.owner.hostname, run.owner.username);
    const lock = await Lock.acquire(s.repo, owner, false, run.signal);
    try {
      // What a backup of a closed tab left: its lock goes, the packs it stored are indexed now.
      await removeDeadEngineLocks(s.repo, owner);
      await s.repo.loadIndex({ signal: run.signal });
      await adoptLeftoverPacks(s.repo, owner, run.signal);
      const listed = sourceFor(req);
      const paths = listed.targets.map((t) => listed.absolute(t));
      const source = withFolderTimes(listed, time, await previousFolders(s, hostname, paths, req.force), exclude);
      const r = await runBackup(
        s.repo,
        source,
        browserPool({
          ...run.pool,
          spares,
          location: s.loc,
          fileServer: req.source.kind === 'served-files' ? req.source.server : undefined,
          journal: { repo: s.repo.config.id, engine: owner.pid },
        }),
        {
          targets: source.targets,
          hostname,
          username: run.owner.username,
          tags: (req.tags ?? []).map((t) => t.trim()).filter(Boolean),
          force: req.force,
          time,
          excludes,
          exclude,
          signal: run.signal,
          onProgress: run.onProgress,
          journal: packJournal(s.repo.config.id),
        },
      );
      s.forgetSnapshots();
      // The new snapshot, index and listings are in the offline cache before the backup reports
      // done (its trees already are): the network may go the moment the summary shows.
      await s.cached?.settled();
      return {
        snapshotId: r.id!, // the browser never asks to skip an unchanged snapshot
        parent: r.parent,
        summary: summaryView(r.summary),
        filesRead: r.filesRead,
        warnings: r.warnings.map((w) => ({ path: w.path, code: w.code, message: w.message })),
        durationMs: Math.round(performance.now() - started),
        bytes: r.summary.totalBytesProcessed,
      };
    } finally {
      await lock.release().catch(() => {});
    }
  } finally {
    spares.dispose();
  }
}
