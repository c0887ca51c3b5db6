// Restores a snapshot (or a sub-tree of it) into a RestoreTarget, in restic's three steps
// (internal/restorer): plan the tree (./restore-plan.ts: folders, symlinks, empty files now;
// the blobs of the others by pack), read each pack once and write its blobs wherever they go
// (./pack-reader.ts, ./file-writers.ts), then folder metadata and --delete (./finish-dirs.ts).
// Every blob is verified against its SHA-256; a blob that cannot be read fails only the files
// that contain it, and those are named in the result and not left in the target.

import { throwIfAborted } from '../errors';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import type { ProgressSnapshot } from '../progress';
import { mapLimit } from '../concurrency/concurrency';
import { FileWriters } from './file-writers';
import { PackReader, type PackDecoder } from './pack-reader';
import { RestorePlanner, type RestorePlan } from './restore-plan';
import { RestoreReport, type RestoreItem, type RestoreResult } from './report';
import { selector, type SelectionOptions } from './selection';
import type { OverwriteMode } from './overwrite';
import { deleteUnexpected, setDirMetadata } from './finish-dirs';
import type { RestoreTarget } from './target';
import { verifyFiles } from './verify';

export { DECODE_GROUP_BYTES } from './pack-groups';
export type { PackDecoder } from './pack-reader';
export type { RestoreError, RestoreItem, RestoreResult } from './report';

export interface RestoreOptions extends SelectionOptions {
  signal?: AbortSignal;
  onProgress?: (p: ProgressSnapshot) => void;
  /** Each entry as it is restored, updated, left unchanged or deleted (restic's -vv lines). */
  onItem?: (item: RestoreItem) => void;
  /** What to do with what the target already holds (default 'always'; see ./overwrite.ts). */
  overwrite?: OverwriteMode;
  /** Remove what the target holds that the snapshot does not, in the folders restored. */
  delete?: boolean;
  /** Look, decide and report, but write nothing. */
  dryRun?: boolean;
  /**
   * After a restore without errors, read every file it wrote back and check each blob's bytes
   * against its hash (restic --verify); `onVerify` is called as that starts.
   */
  verify?: boolean;
  onVerify?: () => void;
  /** Packs read at once. */
  concurrency?: number;
  /**
   * Read a pack decoded in groups one group's range at a time, not the whole pack at once,
   * so each pack in flight holds a group's few MiB rather than its 17 MiB until its last
   * group is decoded (the browser does so for every repository, a bucket's too).
   */
  readGroups?: boolean;
  /** File writes (and creations, metadata) in flight at once. */
  writeConcurrency?: number;
  /**
   * Decrypts and verifies a pack's blobs elsewhere (worker threads), in place; without it
   * they are decoded here. See PackDecoder.
   */
  decodePack?: PackDecoder;
}

export async function restore(repo: Repository, treeID: ID, target: RestoreTarget, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const signal = opts.signal;
  const report = new RestoreReport(opts.onProgress, opts.onItem);
  await repo.loadIndex({ signal });
  const select = selector(opts);
  const dryRun = opts.dryRun ?? false;
  const planOpts = { select, overwrite: opts.overwrite ?? 'always', dryRun, names: opts.delete ?? false, keepContent: opts.verify ?? false, signal };
  const plan = await new RestorePlanner(repo, target, planOpts, report).run(treeID);
  await writeFiles(repo, plan, target, report, opts);
  await deleteUnexpected(plan, target, report, { enabled: opts.delete ?? false, select, dryRun, signal });
  await setDirMetadata(plan, target, report, dryRun);
  report.progress.phase = 'done';
  report.progress.tick(true);
  const result = report.result();
  if (opts.verify && !dryRun && result.errors.length === 0) {
    opts.onVerify?.();
    result.verified = await verifyFiles(repo, target, plan.files, report, signal);
  }
  return result;
}

/** Reads each pack once and writes its blobs wherever they go. */
async function writeFiles(repo: Repository, plan: RestorePlan, target: RestoreTarget, report: RestoreReport, opts: RestoreOptions): Promise<void> {
  const signal = opts.signal;
  const writers = new FileWriters(target, report, signal, opts.writeConcurrency);
  const concurrency = opts.concurrency ?? 4;
  const reader = new PackReader(repo, { signal, concurrency, readGroups: opts.readGroups, decodePack: opts.decodePack, tick: () => report.progress.tick() });
  const deliver = writers.deliver.bind(writers);
  try {
    await mapLimit(plan.packs, concurrency, async ([packID, blobs]) => {
      throwIfAborted(signal);
      if (writers.fatal) throw writers.fatal.e;
      await reader.read(packID, blobs.values(), deliver);
    });
  } finally {
    await writers.drain();
  }
  if (writers.fatal) throw writers.fatal.e;
}
