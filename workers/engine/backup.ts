// A backup from the browser: the archiver runs here (the coordinator), file contents are read,
// chunked, sealed and uploaded by the file-saver workers. The repository is locked
// non-exclusively for the duration, as restic does (the lock refreshes itself).

import { backup as runBackup } from '../../core/archiver/archiver';
import type { SourceFS } from '../../core/archiver/source';
import type { ProgressSnapshot } from '../../core/progress';
import { Lock } from '../../core/repository/lock';
import { excludeMatcher } from './excludes';
import type { BackupRequest, BackupResultView } from '../api';
import { browserPool, type BrowserPoolOptions } from '../pool/browser-pool';
import { fileListSource, fileListSourceOf } from '../source/file-list-source';
import { requestMetadata, type ServedFileRef } from '../source/file-server';
import { handleSource } from '../source/handle-source';
import type { Owner } from './open';
import type { Session } from './session';
import { summaryView } from './views';

export function sourceFor(req: BackupRequest): SourceFS & { target: string } {
  const src = req.source;
  if (src.kind === 'handle') return handleSource(src.handle);
  if (src.kind === 'served-files') return fileListSourceOf(src.relativePaths, requestMetadata(src.server, src.relativePaths.length), (i) => ({ served: i }) satisfies ServedFileRef, excludeMatcher(req.excludes ?? []));
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
  const lock = await Lock.acquire(s.repo, { hostname: run.owner.hostname, username: run.owner.username, pid: lockPid() }, false, run.signal);
  try {
    const r = await runBackup(s.repo, source, browserPool({ ...run.pool, location: s.loc, fileServer: req.source.kind === 'served-files' ? req.source.server : undefined }), {
      targets: [source.target],
      hostname: run.owner.hostname,
      username: run.owner.username,
      tags: (req.tags ?? []).map((t) => t.trim()).filter(Boolean),
      force: req.force,
      excludes,
      exclude: excludeMatcher(excludes),
      signal: run.signal,
      onProgress: run.onProgress,
    });
    s.forgetSnapshots();
    return {
      snapshotId: r.id,
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
}

/** Lock files record a PID; a browser tab has none, so each engine picks a random one. */
let pid: number | undefined;
function lockPid(): number {
  pid ??= 1 + Math.floor(Math.random() * 2 ** 31);
  return pid;
}
