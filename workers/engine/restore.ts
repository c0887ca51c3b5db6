// Getting files back: into a picked folder (the pack-ordered restorer), into one file the user
// chose with showSaveFilePicker, or as a streamed download through the service worker. Every
// byte comes through Repository.loadBlob / decodeBlob, which check it against its blob hash.

import { CairnError, serializeError } from '../../core/errors';
import type { Node } from '../../core/data/node';
import { ProgressTracker, type ProgressSnapshot } from '../../core/progress';
import { restore, type RestoreResult } from '../../core/restorer/restorer';
import { within } from '../../core/restorer/within';
import { parsePattern } from '../../core/filter/pattern';
import { contentSize } from '../../core/restorer/file-stream';
import { fileContent } from '../../core/restorer/lookahead';
import { zipTree, type ZipRoot } from '../../core/restorer/zip-tree';
import type { ZipSink } from '../../core/restorer/zip';
import type { DownloadKind, RestorePatterns, RestoreResultView } from '../api';
import { fsaRestoreTarget } from '../restore/fsa-target';
import { browserDecodePool } from '../pool/decode-pool';
import { dirTree, findNode } from './browse';
import type { Session } from './session';
import { isRemote } from '../location';

function needsData(s: Session): void {
  s.requireOnline('Restoring file contents');
}

/**
 * Restores a file or directory (or the whole snapshot) into `target`. A directory's patterns
 * (restic's include/exclude syntax) are matched as `restic restore snapshot:folder` matches
 * them: against paths inside that directory ("/photos/2019", "*.tmp").
 */
export async function restoreToFolder(
  s: Session,
  snapshotId: string,
  path: string[],
  target: FileSystemDirectoryHandle,
  signal: AbortSignal,
  onProgress?: (p: ProgressSnapshot) => void,
  patterns: RestorePatterns = {},
): Promise<RestoreResultView> {
  needsData(s);
  const fsa = fsaRestoreTarget(target);
  // Decrypting, verifying and decompressing run in decode workers (one per core); this worker
  // reads packs and writes files.
  const decoders = browserDecodePool();
  // Packs read at once: a bucket's reads wait on the network, so four; a local repository's
  // are quick, and each pack in flight holds its 17 MiB buffer and two groups of plaintext
  // while its files are written, so two bound the engine's memory (bench/README.md).
  const concurrency = isRemote(s.loc) ? 4 : 2;
  // A pack decoded in groups is read a group at a time, so a pack of many small files does
  // not keep its whole 17 MiB buffer while its thousands of files are written. From a bucket
  // too: a group's GET is only one more request per ~4 MiB, and a whole pack read would stay
  // in memory for most of the restore. Packs decoded whole (mostly incompressible data) are
  // read whole as before. Figures: bench/README.md.
  const opts = { signal, onProgress, concurrency, readGroups: true, decodePack: decoders.decodePack };
  const selection = { include: (patterns.include ?? []).map(parsePattern), exclude: (patterns.exclude ?? []).map(parsePattern) };
  try {
    if (path.length === 0) return view(await restore(s.repo, (await s.snapshot(snapshotId)).snapshot.tree, fsa, { ...opts, ...selection }));
    const node = await findNode(s, snapshotId, path);
    if (node.type === 'dir' && node.subtree) {
      // The folder's own tree into target/<name>/; errors named from the folder, as before.
      await fsa.mkdir([node.name]);
      return view(await restore(s.repo, node.subtree, within(fsa, [node.name]), { ...opts, ...selection }), node.name);
    }
    // One entry of the parent tree (escaped: names may hold * ? [).
    const parent = await dirTree(s, snapshotId, path.slice(0, -1));
    const pattern = '/' + node.name.replace(/[*?[\\]/g, (c) => '\\' + c);
    return view(await restore(s.repo, parent, fsa, { ...opts, include: [{ parts: pattern.split('/').filter(Boolean), anchored: true }] }));
  } finally {
    await decoders.close();
  }
}

/** What the page gets; error paths below `under` when the restore started inside it. */
function view(r: RestoreResult, under?: string): RestoreResultView {
  const errors = under === undefined ? r.errors : r.errors.map((e) => ({ ...e, path: `/${under}${e.path === '/' ? '' : e.path}` }));
  return { files: r.files, dirs: r.dirs, bytes: r.bytes, errors };
}

export interface Producer {
  filename: string;
  size?: number;
  /** Writes everything into `sink`; resolves with what made it. */
  run(sink: ZipSink, signal: AbortSignal, onProgress?: (p: ProgressSnapshot) => void): Promise<RestoreResultView>;
}

/** What a download of `path` produces: one file's bytes, or a ZIP. */
export async function producer(s: Session, snapshotId: string, path: string[], kind: DownloadKind): Promise<Producer> {
  needsData(s);
  const sn = await s.snapshot(snapshotId);
  await s.repo.loadIndex();
  if (kind === 'file') {
    const node = await findNode(s, snapshotId, path);
    if (node.type !== 'file') throw new CairnError('USAGE', `/${path.join('/')} is not a file; download it as a ZIP`);
    return { filename: node.name, size: contentSize(s.repo, node), run: (sink, signal, onProgress) => streamFile(s, node, sink, signal, onProgress) };
  }
  let root: ZipRoot;
  let base: string;
  if (path.length === 0) {
    root = { kind: 'tree', tree: sn.snapshot.tree, name: '' };
    base = `snapshot-${sn.id.slice(0, 8)}`;
  } else {
    const node = await findNode(s, snapshotId, path);
    root = node.type === 'dir' ? { kind: 'tree', tree: node.subtree!, name: node.name } : { kind: 'node', node };
    base = node.name;
  }
  return {
    filename: `${base}.zip`,
    run: async (sink, signal, onProgress) => {
      // As for a restore: decrypting and verifying in decode workers, while this one reads
      // packs, checksums and writes the archive.
      const decoders = browserDecodePool();
      try {
        const r = await zipTree(s.repo, root, sink, { signal, onProgress, decodePack: decoders.decodePack });
        return { files: r.files, dirs: r.dirs, bytes: r.bytes, errors: r.errors };
      } finally {
        await decoders.close();
      }
    },
  };
}

async function streamFile(s: Session, node: Node, sink: ZipSink, signal: AbortSignal, onProgress?: (p: ProgressSnapshot) => void): Promise<RestoreResultView> {
  const progress = new ProgressTracker('downloading', onProgress);
  progress.total.files = 1;
  progress.total.bytes = node.size ?? 0;
  progress.totalsFinal = true;
  progress.current.add(node.name);
  // A large file is read in pack ranges and decoded in decode workers, as a ZIP is; for a
  // small one, starting those workers would take longer than the file.
  const decoders = (node.size ?? 0) >= LARGE_FILE ? browserDecodePool() : undefined;
  try {
    for await (const piece of fileContent(s.repo, node, { signal, decodePack: decoders?.decodePack })) {
      const n = piece.length; // the sink may transfer (detach) the piece's buffer
      await sink(piece);
      progress.done.bytes += n;
      progress.tick();
    }
  } finally {
    await decoders?.close();
  }
  progress.done.files = 1;
  progress.current.clear();
  progress.phase = 'done';
  progress.tick(true);
  return { files: 1, dirs: 0, bytes: progress.done.bytes, errors: [] };
}

/** Files from this size on are decoded in decode workers when downloaded. */
const LARGE_FILE = 32 << 20;

/** Writes a file or a ZIP into a handle from showSaveFilePicker. */
export async function saveToFile(
  s: Session,
  snapshotId: string,
  path: string[],
  kind: DownloadKind,
  target: FileSystemFileHandle,
  signal: AbortSignal,
  onProgress?: (p: ProgressSnapshot) => void,
): Promise<RestoreResultView> {
  const p = await producer(s, snapshotId, path, kind);
  const w = await target.createWritable({ keepExistingData: false });
  try {
    const r = await p.run((chunk) => w.write(chunk as Uint8Array<ArrayBuffer>), signal, onProgress);
    await w.close();
    return r;
  } catch (e) {
    await w.abort().catch(() => {});
    if (kind === 'file' && !(e instanceof CairnError && e.code === 'ABORTED')) {
      const err = serializeError(e);
      return { files: 0, dirs: 0, bytes: 0, errors: [{ path: '/' + path.join('/'), code: err.code, message: err.message }] };
    }
    throw e;
  }
}
