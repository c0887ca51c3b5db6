// The archiver: walks the sources, reuses unchanged files from the parent snapshot, hands
// changed files to a FileSaverPool, builds tree blobs bottom-up, and finally writes packs →
// index → snapshot in that order (restic internal/archiver). Memory stays bounded: at most
// `pool.concurrency` files are in flight, the walk lists ahead only while few listed files
// wait for a saver, and packs are streamed out as they fill.

import { CairnError, serializeError, throwIfAborted, type ErrorCode } from '../errors';
import { Semaphore } from '../backend/limit';
import { encodeTree, decodeTree, type Node, type Tree } from '../data';
import { encodeSnapshot, type Snapshot, type SnapshotSummary } from '../data/snapshot';
import { GoTime } from '../data/go-time';
import { hashID, type ID } from '../id';
import { encodeBlob } from '../repository/blob-codec';
import { PackerManager } from '../repository/packer-manager';
import type { Repository } from '../repository/repository';
import { journaledSaver, type PackJournal } from '../repository/adopt';
import { findParent, findSnapshot } from '../repository/snapshots';
import { ProgressTracker, type ProgressSnapshot } from '../progress';
import { BlobRegistry } from './blob-registry';
import { buildTargetTree, type TargetDir } from './targets';
import { scanTotals } from './scanner';
import type { FileSaverPool, PoolFactory } from './pool';
import type { SourceEntry, SourceFS } from './source';
import { unchanged } from './change-detection';

export interface BackupWarning {
  path: string;
  code: ErrorCode;
  message: string;
}

export interface BackupOptions {
  targets: string[];
  hostname: string;
  username?: string;
  uid?: number;
  gid?: number;
  tags?: string[];
  /** Use this snapshot as parent instead of the newest with the same host and paths. */
  parent?: string;
  /** Read every file even if the parent says it is unchanged (restic --force). */
  force?: boolean;
  /** Recorded in the snapshot's `excludes`. */
  excludes?: string[];
  /** Leaves an entry (and everything under it) out of the backup. */
  exclude?: (path: string, entry: SourceEntry) => boolean;
  time?: GoTime;
  programVersion?: string;
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
}

export interface BackupResult {
  id: ID;
  snapshot: Snapshot;
  summary: SnapshotSummary;
  parent?: ID;
  warnings: BackupWarning[];
  /** Files whose contents were read (new or changed). */
  filesRead: number;
}

const PROGRAM_VERSION = 'cairn 0.1.0';
/** How long a cancelled backup waits for its savers to store what they already hold. */
const FLUSH_ON_CANCEL_MS = 15_000;
/** Listed files waiting for a saver (beyond the pool's own concurrency) before listing pauses. */
const WALK_QUEUE = 256;
/** Directory listings at once. */
const LIST_PARALLEL = 16;

/** `p`, or a rejection once `ms` have passed. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new CairnError('ABORTED', `gave up after ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export async function backup(repo: Repository, source: SourceFS, makePool: PoolFactory, opts: BackupOptions): Promise<BackupResult> {
  const signal = opts.signal;
  const start = GoTime.fromDate(new Date());
  const progress = new ProgressTracker('scanning', opts.onProgress);
  const warnings: BackupWarning[] = [];
  const warn = (path: string, e: unknown) => {
    const s = serializeError(e);
    const w = { path, code: s.code, message: s.message };
    warnings.push(w);
    progress.errors++;
    opts.onWarning?.(w);
  };

  await repo.loadIndex({ signal });
  const paths = opts.targets.map((t) => source.absolute(t));
  const parentEntry = opts.parent
    ? await findSnapshot(repo, opts.parent, {}, signal)
    : opts.force
      ? undefined
      : await findParent(repo, opts.hostname, paths, signal);

  const registry = new BlobRegistry(repo.index);
  const settings = { key: repo.key, polynomial: repo.config.chunkerPolynomial, version: repo.version, compression: repo.compression, packSize: repo.packSize };

  // Index files: written as packs accumulate so an interrupted backup can resume from them.
  let indexChain: Promise<unknown> = Promise.resolve();
  let indexFailure: unknown;
  let lastIndexAt = Date.now();
  const writeIndex = (sig?: AbortSignal) => {
    const packs = registry.takeUnindexed();
    lastIndexAt = Date.now();
    if (packs.length === 0) return indexChain;
    indexChain = indexChain
      .then(() => repo.saveIndex(packs, sig))
      .then(() => opts.journal?.indexed(packs.map((p) => p.id)))
      .catch((e) => void (indexFailure ??= e));
    return indexChain;
  };
  const packSaved = (pack: Parameters<BlobRegistry['packSaved']>[0], size: number) => {
    registry.packSaved(pack, size);
    if (registry.unindexedBlobs >= (opts.indexBlobs ?? 50_000) || Date.now() - lastIndexAt >= (opts.indexIntervalMs ?? 5 * 60_000)) {
      void writeIndex(signal);
    }
  };

  // A backup's tree pack mostly stays far below the 16 MiB target (a tree is one directory's
  // listing, compressed), so its buffer grows as trees come instead of taking 16 MiB up front.
  const treePacks = new PackerManager({
    key: repo.key,
    saver: opts.journal ? journaledSaver(repo.backend, opts.journal) : repo.backend,
    packSize: repo.packSize,
    growFrom: 64 * 1024,
    onPackSaved: packSaved,
    signal,
  });
  // Saver threads start with the first file that must be read: an unchanged re-backup needs none.
  let saving: Promise<{ pool: FileSaverPool; files: Semaphore }> | undefined;
  const savers = () =>
    (saving ??= makePool(settings, { claim: (id) => registry.claim('data', id), packSaved }, signal).then((pool) => ({
      pool,
      files: new Semaphore(Math.max(1, pool.concurrency)),
    })));
  const s = {
    filesNew: 0,
    filesChanged: 0,
    filesUnmodified: 0,
    dirsNew: 0,
    dirsChanged: 0,
    dirsUnmodified: 0,
    dataBlobs: 0,
    treeBlobs: 0,
    dataAdded: 0,
    dataAddedPacked: 0,
    files: 0,
    bytes: 0,
  };
  let filesRead = 0;

  // New trees also go into the repository's blob cache as they are sealed (the browser's
  // offline cache): browsing the new snapshot, online or not, then reads none of them back.
  const treeCache = repo.blobCache?.wants('tree') ? repo.blobCache : undefined;
  const cached = new Set<Promise<unknown>>();
  const saveTree = async (nodes: Node[]): Promise<ID> => {
    const bytes = encodeTree(nodes);
    const id = await hashID(bytes);
    if (registry.claim('tree', id)) {
      const blob = await encodeBlob(repo.key, 'tree', bytes, repo.version, repo.compression);
      await treePacks.add('tree', id, blob.sealed, blob.uncompressedLength);
      if (treeCache) {
        const put = treeCache.put('tree', id, blob.sealed).catch(() => {}); // a full cache never fails a backup
        cached.add(put);
        void put.finally(() => cached.delete(put));
      }
      s.treeBlobs++;
      s.dataAdded += bytes.length;
      s.dataAddedPacked += blob.sealed.length;
    }
    return id;
  };

  const loadTree = async (id: string | undefined): Promise<Tree | undefined> => {
    if (!id) return undefined;
    try {
      return decodeTree(await repo.loadBlob('tree', id, signal));
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      return undefined; // an unreadable parent tree only costs re-reading the files
    }
  };

  const saveFile = async (entry: SourceEntry, old: Node | undefined, started: () => void): Promise<Node | undefined> => {
    const node = entry.node;
    if (old && !opts.force && unchanged(old, entry, opts.strictChangeDetection ?? false) && old.content!.every((id) => repo.index.has('data', id))) {
      s.filesUnmodified++;
      s.files++;
      s.bytes += entry.size;
      progress.done.files++;
      progress.done.bytes += entry.size;
      progress.tick();
      return { ...node, size: entry.size, content: old.content };
    }
    let ref = entry.ref;
    if (entry.open) {
      try {
        ref = await entry.open();
      } catch (e) {
        if (!(e instanceof CairnError && (e.code === 'SOURCE_READ' || e.code === 'NOT_FOUND'))) throw e;
        warn(entry.path, e);
        return undefined; // left out of the snapshot, as restic does
      }
    }
    const { pool, files } = await savers();
    await files.acquire(signal);
    started();
    progress.current.add(entry.path);
    try {
      const save = (ref: unknown) =>
        pool.save(
          { ref, path: entry.path, size: entry.size },
          (n) => {
            progress.done.bytes += n;
            progress.tick();
          },
          signal,
        );
      const saved = await save(ref).catch(async (e) => {
        // The ref went stale (the file changed after it was listed): read it as it is now.
        if (!(entry.reopen && e instanceof CairnError && e.code === 'SOURCE_READ' && e.detail['domError'] === 'NotReadableError')) throw e;
        return save(await entry.reopen());
      });
      filesRead++;
      if (saved.changed)
        warn(
          entry.path,
          new CairnError('SOURCE_CHANGED', `${entry.path}: file changed while it was read (${entry.size} → ${saved.size} bytes); saved what was read`),
        );
      if (old) s.filesChanged++;
      else s.filesNew++;
      s.files++;
      s.bytes += saved.size;
      s.dataBlobs += saved.blobsNew;
      s.dataAdded += saved.bytesNew;
      s.dataAddedPacked += saved.bytesStored;
      progress.done.files++;
      progress.add(old ? 'filesChanged' : 'filesNew');
      return { ...node, size: saved.size, content: saved.content };
    } catch (e) {
      if (e instanceof CairnError && (e.code === 'SOURCE_READ' || e.code === 'NOT_FOUND')) {
        warn(entry.path, e);
        return undefined; // left out of the snapshot, as restic does
      }
      throw e;
    } finally {
      progress.current.delete(entry.path);
      files.release();
    }
  };

  // The walk. A directory is listed only while fewer than WALK_QUEUE listed files wait for a
  // saver, at most LIST_PARALLEL at once, the newest waiting directory first. So the walk goes
  // depth-first, and the files waiting stay near WALK_QUEUE plus what the listings under way
  // add, instead of every file of a 50k-file folder at once (restic: one sequential walker
  // feeding bounded savers). A directory waiting for its children holds no turn, and files
  // drain without one, so the walk cannot deadlock.
  let filesWaiting = 0;
  let listing = 0;
  const listQueue: (() => void)[] = [];
  let walkFailed: { e: unknown } | undefined;
  const wake = () => {
    while (listQueue.length > 0 && ((listing < LIST_PARALLEL && filesWaiting < WALK_QUEUE) || walkFailed || signal?.aborted)) {
      listing++;
      listQueue.pop()!();
    }
  };
  signal?.addEventListener('abort', wake, { once: true });
  const listTurn = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (listQueue.length === 0 && listing < LIST_PARALLEL && filesWaiting < WALK_QUEUE) listing++;
    else await new Promise<void>((resolve) => listQueue.push(resolve)); // wake() counts us in
    try {
      if (walkFailed) throw walkFailed.e;
      throwIfAborted(signal);
      return await fn();
    } finally {
      listing--;
      wake();
    }
  };

  /** `started` is called once the entry no longer waits: a file handed to a saver, or done. */
  const saveEntry = async (entry: SourceEntry, old: Node | undefined, started: () => void): Promise<Node | undefined> => {
    throwIfAborted(signal);
    if (opts.exclude?.(entry.path, entry)) return undefined;
    switch (entry.node.type) {
      case 'dir': {
        const oldDir = old?.type === 'dir' ? old : undefined;
        const [children, oldTree] = await listTurn(async () => {
          const listed = await Promise.all([source.readDir(entry, warn, signal), loadTree(oldDir?.subtree)]);
          for (const c of listed[0]) if (c.node.type === 'file') filesWaiting++; // before the next turn is given
          return listed;
        });
        return saveDir(entry, children, oldDir, oldTree);
      }
      case 'file':
        return saveFile(entry, old?.type === 'file' && old.content ? old : undefined, started);
      default:
        s.files++;
        return { ...entry.node, content: null };
    }
  };

  const saveDir = async (
    entry: SourceEntry | undefined,
    children: SourceEntry[],
    old: Node | undefined,
    oldTree: Tree | undefined,
    virtual?: TargetDir[],
  ): Promise<Node | undefined> => {
    const oldByName = new Map((oldTree?.nodes ?? []).map((n) => [n.name, n]));
    // Subdirectories queue last to first: the newest waiter goes first, so the first is walked first.
    const pending: Promise<Node | undefined>[] = new Array(children.length);
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      let waiting = child.node.type === 'file'; // counted in filesWaiting when listed
      const started = () => {
        if (!waiting) return;
        waiting = false;
        filesWaiting--;
        wake();
      };
      pending[i] = saveEntry(child, oldByName.get(child.node.name), started).then(
        (n) => {
          started();
          return n;
        },
        (e) => {
          started();
          if (!walkFailed) {
            walkFailed = { e };
            wake();
          }
          throw e;
        },
      );
    }
    const settled = await Promise.allSettled(pending);
    const nodes: Node[] = [];
    for (const r of settled) {
      if (r.status === 'rejected') throw walkFailed?.e ?? r.reason;
      if (r.value) nodes.push(r.value);
    }
    for (const v of virtual ?? []) {
      const n = await saveTarget(v, oldByName.get(v.name));
      if (n) nodes.push(n);
    }
    const subtree = await saveTree(nodes);
    if (!old) s.dirsNew++;
    else if (old.subtree === subtree) s.dirsUnmodified++;
    else s.dirsChanged++;
    if (!entry) return { name: '', type: 'dir', mtime: GoTime.zero, atime: GoTime.zero, ctime: GoTime.zero, uid: 0, gid: 0, content: null, subtree };
    return { ...entry.node, content: null, subtree };
  };

  // Intermediate path components ("home", "u" for /home/u/docs) are dirs holding only the
  // next component; the targets themselves are saved whole.
  const saveTarget = async (t: TargetDir, old: Node | undefined): Promise<Node | undefined> => {
    if (t.target) {
      const entry = await source.stat(t.path, signal).catch((e) => {
        warn(t.path, e);
        return undefined;
      });
      return entry ? saveEntry(entry, old, () => {}) : undefined;
    }
    const entry = await source.stat(t.path, signal);
    const oldDir = old?.type === 'dir' ? old : undefined;
    return saveDir(entry, [], oldDir, await loadTree(oldDir?.subtree), t.children);
  };

  // Totals for percentages and ETA cost a second walk: only when someone watches progress.
  const scan = opts.onProgress ? scanTotals(source, paths, opts.exclude, progress, signal).catch(() => {}) : Promise.resolve();
  progress.phase = 'backing-up';
  try {
    const root = buildTargetTree(source, paths);
    const rootOld: Node | undefined = parentEntry
      ? { name: '', type: 'dir', mtime: GoTime.zero, atime: GoTime.zero, ctime: GoTime.zero, uid: 0, gid: 0, content: null, subtree: parentEntry.snapshot.tree }
      : undefined;
    const rootNode = await saveDir(undefined, [], rootOld, await loadTree(rootOld?.subtree), root);
    await scan;
    progress.phase = 'finishing';
    progress.tick(true);
    if (saving) await (await saving).pool.flush();
    await treePacks.flush();
    await writeIndex(signal);
    if (indexFailure) throw indexFailure;

    const summary: SnapshotSummary = {
      backupStart: start,
      backupEnd: GoTime.fromDate(new Date()),
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
      totalFilesProcessed: s.files,
      totalBytesProcessed: s.bytes,
    };
    const snapshot: Snapshot = {
      time: opts.time ?? start,
      parent: parentEntry?.id,
      tree: rootNode!.subtree!,
      paths,
      hostname: opts.hostname,
      username: opts.username,
      uid: opts.uid,
      gid: opts.gid,
      excludes: opts.excludes?.length ? opts.excludes : undefined,
      tags: opts.tags?.length ? opts.tags : undefined,
      programVersion: opts.programVersion ?? PROGRAM_VERSION,
      summary,
    };
    const id = await repo.saveJSON('snapshots', encodeSnapshot(snapshot), signal);
    await Promise.all(cached);
    progress.phase = 'done';
    progress.tick(true);
    return { id, snapshot, summary, parent: parentEntry?.id, warnings, filesRead };
  } catch (e) {
    // Whatever packs are already stored get indexed, so the next run does not upload them again.
    // On a cancel, the savers first store what they hold (uploads in flight and the blobs
    // already in their open packs; files stop being read at once), for up to FLUSH_ON_CANCEL_MS.
    if (saving && e instanceof CairnError && e.code === 'ABORTED') {
      const started = await saving.catch(() => undefined);
      if (started) await withTimeout(started.pool.flush(), FLUSH_ON_CANCEL_MS).catch(() => {});
    }
    await writeIndex().catch(() => {});
    throw e;
  } finally {
    signal?.removeEventListener('abort', wake);
    if (saving)
      await saving.then(
        (started) => started.pool.close(),
        () => {},
      );
  }
}
