// A backup from the browser: the archiver runs here (the coordinator), file contents are read,
// chunked, sealed and uploaded by the file-saver workers. The repository is locked
// non-exclusively for the duration, as restic does (the lock refreshes itself). What a backup
// that a closed tab cut short left behind is taken up first (./pack-journal.ts).

import { backup as runBackup } from '../../core/archiver/archiver';
import type { SourceFS } from '../../core/archiver/source';
import type { ProgressSnapshot } from '../../core/progress';
import { Lock } from '../../core/repository/lock';
import { excludeMatcher } from './excludes';
import type { BackupRequest, BackupResultView } from '../api';
import { browserPool, saverWorkerCount, takeSavers, type BrowserPoolOptions } from '../pool/browser-pool';
import { fileListSource, fileListSourceOf } from '../source/file-list-source';
import { requestMetadata, type ServedFileRef } from '../source/file-server';
import { handleSource } from '../source/handle-source';
import type { Owner } from './open';
import { adoptLeftoverPacks, engineOwner, packJournal, removeDeadEngineLocks } from './pack-journal';
import type { Session } from './session';
import { summaryView } from './views';

export function sourceFor(req: BackupRequest): SourceFS & { target: string } {
  const src = req.source;
  if (src.kind === 'handle') return handleSource(src.handle);
  if (src.kind === 'served-files')
    return fileListSourceOf(
      src.relativePaths,
      requestMetadata(src.server, src.relativePaths.length),
      (i) => ({ served: i }) satisfies ServedFileRef,
      excludeMatcher(req.excludes ?? []),
    );
  return fileListSource(src.files, src.relativePaths);
}

export interface BackupRun {
  owner: Owner;
  signal: AbortSignal;
  onProgress?: (p: ProgressSnapshot) => void;
  pool?: Omit<BrowserPoolOptions, 'location'>;
}

export async function backup(s: Session, req: BackupRequest, run: BackupRun): Promise<BackupResultView & { bytes: number }> {
  s.requireOnline('a backup');
  const source = sourceFor(req);
  const excludes = (req.excludes ?? []).map((p) => p.trim()).filter(Boolean);
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
          targets: [source.target],
          hostname: run.owner.hostname,
          username: run.owner.username,
          tags: (req.tags ?? []).map((t) => t.trim()).filter(Boolean),
          force: req.force,
          excludes,
          exclude: excludeMatcher(excludes),
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
