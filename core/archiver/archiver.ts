// The archiver's coordinator (restic internal/archiver Archiver.Snapshot): finds the parent,
// sets up the units — a FileArchiver over a lazily started FileSaverPool, a TreeSaver, an
// IndexWriter, a ListingScheduler — lets the SourceWalker save the targets, then writes
// packs → index → snapshot in that order. Memory stays bounded: at most `pool.concurrency`
// files are in flight, the walk lists ahead only while few listed files wait for a saver, and
// packs are streamed out as they fill.

import { CairnError } from '../errors';
import type { Node } from '../data';
import type { Snapshot, SnapshotSummary } from '../data/snapshot';
import { GoTime } from '../data/go-time';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { journaledSaver, type PackJournal } from '../repository/adopt';
import type { SnapshotEntry } from '../repository/snapshots';
import { ProgressTracker, type ProgressSnapshot } from '../progress';
import { BackupStats, type CompletedItem } from './backup-stats';
import { BlobRegistry } from './blob-registry';
import { FileArchiver } from './file-archiver';
import { IndexWriter } from './index-writer';
import { LazyPool } from './lazy-pool';
import { ListingScheduler } from './listing-scheduler';
import { chooseParent, loadParentTree } from './parent';
import { scanTotals } from './scanner';
import { makeSnapshot, saveSnapshot, type SnapshotFields } from './snapshot-writer';
import { SourceWalker } from './source-walker';
import { buildTargetTree } from './targets';
import { TreeSaver } from './tree-saver';
import { WarningLog, type BackupWarning } from './warnings';
import type { PoolFactory } from './pool';
import type { SourceEntry, SourceFS } from './source';

export type { BackupWarning };

export interface BackupOptions extends SnapshotFields {
  targets: string[];
  /** Use this snapshot as parent instead of the newest with the same host and paths. */
  parent?: string;
  /** Read every file even if the parent says it is unchanged (restic --force). */
  force?: boolean;
  /** Leaves an entry (and everything under it) out of the backup. */
  exclude?: (path: string, entry: SourceEntry) => boolean;
  /** Also compare ctime and inode with the parent (restic does; browsers have neither). */
  strictChangeDetection?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: ProgressSnapshot) => void;
  onWarning?: (w: BackupWarning) => void;
  /** Write an index file after this many new blobs (restic: 50,000) … */
  indexBlobs?: number;
  /** … or after this long (ms); what an interrupted backup can resume from. */
  indexIntervalMs?: number;
  /** Notes the packs stored until an index lists them (see repository/adopt.ts); the pool's savers note theirs. */
  journal?: PackJournal;
  /** No snapshot when its tree is the parent's (restic 0.17 --skip-if-unchanged). */
  skipIfUnchanged?: boolean;
  /** Each file and directory once saved (restic's -vv list). */
  onItem?: (item: CompletedItem) => void;
}

export interface BackupResult {
  /** The new snapshot's ID; undefined when skipIfUnchanged left it unwritten. */
  id: ID | undefined;
  snapshot: Snapshot;
  summary: SnapshotSummary;
  parent?: ID;
  warnings: BackupWarning[];
  /** Files whose contents were read (new or changed). */
  filesRead: number;
}

/** How long a cancelled backup waits for its savers to store what they already hold. */
const FLUSH_ON_CANCEL_MS = 15_000;
/** Listed files waiting for a saver (beyond the pool's own concurrency) before listing pauses. */
const WALK_QUEUE = 256;
/** Directory listings at once. */
const LIST_PARALLEL = 16;

/** The units of one backup, wired together. */
interface Run {
  stats: BackupStats;
  progress: ProgressTracker;
  warnings: WarningLog;
  indexes: IndexWriter;
  trees: TreeSaver;
  pool: LazyPool;
  scheduler: ListingScheduler;
  walker: SourceWalker;
}

function setUp(repo: Repository, source: SourceFS, makePool: PoolFactory, opts: BackupOptions): Run {
  const signal = opts.signal;
  const stats = new BackupStats();
  const progress = new ProgressTracker('scanning', opts.onProgress);
  const warnings = new WarningLog(progress, opts.onWarning);
  const registry = new BlobRegistry(repo.index);
  const indexes = new IndexWriter(repo, registry, { indexBlobs: opts.indexBlobs, indexIntervalMs: opts.indexIntervalMs, journal: opts.journal, signal });
  const trees = new TreeSaver({
    key: repo.key,
    version: repo.version,
    compression: repo.compression,
    packSize: repo.packSize,
    saver: opts.journal ? journaledSaver(repo.backend, opts.journal) : repo.backend,
    claim: (id) => registry.claim('tree', id),
    onPackSaved: indexes.packSaved,
    cache: repo.blobCache,
    signal,
  });
  const settings = { key: repo.key, polynomial: repo.config.chunkerPolynomial, version: repo.version, compression: repo.compression, packSize: repo.packSize };
  const pool = new LazyPool(makePool, settings, { claim: (id) => registry.claim('data', id), packSaved: indexes.packSaved }, signal);
  const files = new FileArchiver({
    hasData: (id) => repo.index.has('data', id),
    pool,
    stats,
    progress,
    warn: warnings.warn,
    force: opts.force,
    strict: opts.strictChangeDetection,
    onItem: opts.onItem,
    signal,
  });
  const scheduler = new ListingScheduler({ parallel: LIST_PARALLEL, queue: WALK_QUEUE }, signal);
  const parentTree = (id: string | undefined, path: string) => loadParentTree(repo, id, signal, (e) => warnings.warnRepository(path, e));
  const walker = new SourceWalker({
    source,
    files,
    trees,
    scheduler,
    stats,
    parentTree,
    warn: warnings.warn,
    exclude: opts.exclude,
    onItem: opts.onItem,
    signal,
  });
  return { stats, progress, warnings, indexes, trees, pool, scheduler, walker };
}

/** Stores what is still open, in restic's order: packs, then the index that lists them. */
async function finishPacks(run: Run, signal?: AbortSignal): Promise<void> {
  await run.pool.flush();
  await run.trees.flush();
  await run.indexes.write(signal);
  run.indexes.throwIfFailed();
}

async function walk(run: Run, source: SourceFS, paths: string[], parent: SnapshotEntry | undefined, opts: BackupOptions): Promise<Node> {
  const { progress } = run;
  // Totals for percentages and ETA cost a second walk: only when someone watches progress.
  const scan = opts.onProgress ? scanTotals(source, paths, opts.exclude, progress, opts.signal).catch(() => {}) : Promise.resolve();
  progress.phase = 'backing-up';
  const root = await run.walker.root(buildTargetTree(source, paths), parent?.snapshot.tree);
  await scan;
  progress.phase = 'finishing';
  progress.tick(true);
  return root;
}

/** After a failure: whatever packs are stored get indexed, so the next run need not upload them again. */
async function salvage(run: Run, e: unknown): Promise<void> {
  if (e instanceof CairnError && e.code === 'ABORTED') await run.pool.flushWithin(FLUSH_ON_CANCEL_MS);
  await run.indexes.write().catch(() => {});
}

/** restic refuses a backup none of whose targets exist: it would save an empty snapshot. */
async function requireSomeTarget(source: SourceFS, paths: string[], signal?: AbortSignal): Promise<void> {
  const found = await Promise.allSettled(paths.map((p) => source.stat(p, signal)));
  if (found.some((r) => r.status === 'fulfilled')) return;
  const first = found[0]?.status === 'rejected' ? (found[0].reason as unknown) : undefined;
  throw new CairnError('SOURCE_READ', 'all source directories/files do not exist', { cause: first, detail: { paths } });
}

export async function backup(repo: Repository, source: SourceFS, makePool: PoolFactory, opts: BackupOptions): Promise<BackupResult> {
  const start = GoTime.fromDate(new Date());
  const paths = opts.targets.map((t) => source.absolute(t));
  await requireSomeTarget(source, paths, opts.signal);
  await repo.loadIndex({ signal: opts.signal });
  const run = setUp(repo, source, makePool, opts);
  try {
    const parent = await chooseParent(repo, opts, paths, opts.signal, (e) => run.warnings.warnRepository('/', e));
    const root = await walk(run, source, paths, parent, opts);
    await finishPacks(run, opts.signal);
    const summary = run.stats.summary(start, GoTime.fromDate(new Date()));
    const snapshot = makeSnapshot(opts, root.subtree!, paths, summary, parent?.id);
    const skip = opts.skipIfUnchanged && parent?.snapshot.tree === snapshot.tree;
    const id = skip ? undefined : await saveSnapshot(repo, snapshot, opts.signal);
    await run.trees.cached();
    run.progress.phase = 'done';
    run.progress.tick(true);
    return { id, snapshot, summary, parent: parent?.id, warnings: run.warnings.list, filesRead: run.stats.filesRead };
  } catch (e) {
    await salvage(run, e);
    throw e;
  } finally {
    run.scheduler.dispose();
    await run.pool.close();
  }
}
