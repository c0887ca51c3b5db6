// A snapshot directory (or a single file) as a streamed ZIP: walk the tree in name order and
// add each entry as its verified bytes arrive. A file that cannot be read is left out when its
// first blob already fails, or kept truncated when a later one does; either way it is named
// in the result and in a CAIRN-ERRORS.txt entry at the end, and the other files still arrive.

import { CairnError, serializeError, throwIfAborted } from '../errors';
import type { Node } from '../data/node';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { ProgressTracker, type ProgressSnapshot } from '../progress';
import { walk, type WalkItem } from '../walker';
import { assertSafePath, invalidNameError } from '../data/node-name';
import { contentSize } from './file-stream';
import { knownCrc, lookahead } from './lookahead';
import type { PackDecoder, RestoreError, RestoreResult } from './restorer';
import { ZipWriter, type ZipSink } from './zip';

export interface ZipTreeOptions {
  signal?: AbortSignal;
  onProgress?: (p: ProgressSnapshot) => void;
  /** Range reads in flight, across files (default 8; see ./lookahead.ts). */
  ranges?: number;
  /** Decodes pack ranges on other threads (see ./lookahead.ts). */
  decodePack?: PackDecoder;
  forceZip64?: boolean;
}

/**
 * What goes into the archive: a directory's subtree under `name/`, or one file. Several roots
 * (ticked items of one folder) sit side by side at the archive's top level.
 */
export type ZipRoot = { kind: 'tree'; tree: ID; name: string } | { kind: 'node'; node: Node };

const rootPath = (r: ZipRoot): string[] => (r.kind === 'node' ? [r.node.name] : r.name ? [r.name] : []);

const mtimeOf = (n: Node) => new Date(n.mtime.unixMillis());
const permOf = (n: Node) => (n.mode ?? 0o644) & 0o7777;

export async function zipTree(repo: Repository, root: ZipRoot | readonly ZipRoot[], sink: ZipSink, opts: ZipTreeOptions = {}): Promise<RestoreResult> {
  const signal = opts.signal;
  const roots: readonly ZipRoot[] = Array.isArray(root) ? root : [root as ZipRoot];
  await repo.loadIndex({ signal });
  const progress = new ProgressTracker('downloading', opts.onProgress);
  const errors: RestoreError[] = [];
  const result = { files: 0, dirs: 0, bytes: 0 };
  const fail = (path: string, e: unknown) => {
    const s = serializeError(e);
    errors.push({ path, code: s.code, message: s.message });
    progress.errors++;
  };
  const zip = new ZipWriter(sink, { forceZip64: opts.forceZip64 });
  const items = () => entries(repo, roots, signal, fail);
  for (const r of roots) assertSafePath(rootPath(r));
  await countTotals(items(), progress);
  errors.length = 0; // the data pass reports tree errors again
  progress.errors = 0;

  // A tree root's own folder entry goes first; with several roots, each before its contents
  // would need the walk's order broken up, so they all lead (an unzipper makes folders as needed).
  for (const r of roots) if (r.kind === 'tree' && r.name) await zip.directory(r.name, { mtime: new Date() });
  for await (const { path, node, content } of lookahead(repo, items(), { signal, ranges: opts.ranges, decodePack: opts.decodePack, crc: true })) {
    throwIfAborted(signal);
    const name = path.join('/');
    const meta = { mtime: mtimeOf(node), mode: permOf(node) };
    if (node.type === 'dir') {
      await zip.directory(name, meta);
      result.dirs++;
    } else if (node.type === 'symlink') {
      await zip.symlink(name, meta, node.linkTarget ?? '');
      result.files++;
    } else if (node.type === 'file') {
      progress.current.add(name);
      try {
        await zipFile(repo, zip, name, node, content, meta, (n) => {
          progress.done.bytes += n;
          result.bytes += n;
          progress.tick();
        });
        result.files++;
      } catch (e) {
        if (e instanceof CairnError && e.code === 'ABORTED') throw e;
        fail('/' + name, e);
      } finally {
        progress.current.delete(name);
        progress.done.files++;
        progress.tick();
      }
    } // devices, fifos, sockets have no content to download
  }
  if (errors.length > 0) await errorList(zip, errors);
  await zip.finish();
  progress.phase = 'done';
  progress.tick(true);
  return { ...result, errors };
}

/**
 * What goes into the archive, in order. One root's items are the walk itself, not wrapped in
 * another generator: every item would pass through it (see walk). Its paths already start with
 * the root's name.
 */
function entries(
  repo: Repository,
  roots: readonly ZipRoot[],
  signal: AbortSignal | undefined,
  fail: (path: string, e: unknown) => void,
): AsyncGenerator<WalkItem> {
  if (roots.length === 1) return rootEntries(repo, roots[0]!, signal, fail);
  return (async function* () {
    for (const r of roots) yield* rootEntries(repo, r, signal, fail);
  })();
}

function rootEntries(repo: Repository, root: ZipRoot, signal: AbortSignal | undefined, fail: (path: string, e: unknown) => void): AsyncGenerator<WalkItem> {
  if (root.kind === 'node')
    return (async function* () {
      yield { path: [root.node.name], node: root.node };
    })();
  return walk(
    repo,
    root.tree,
    {
      signal,
      onTreeError: (p, _id, e) => fail('/' + p.join('/'), e),
      onInvalidName: (dir, node, problem) => fail('/' + [...dir, JSON.stringify(node.name)].join('/'), invalidNameError(dir, node.name, problem)),
    },
    rootPath(root),
  );
}

/** Totals first (trees only, no data), so progress has an ETA. */
async function countTotals(items: AsyncIterable<WalkItem>, progress: ProgressTracker): Promise<void> {
  for await (const { node } of items) {
    if (node.type !== 'file') continue;
    progress.total.files++;
    progress.total.bytes += node.size ?? 0;
  }
  progress.totalsFinal = true;
}

/** The files that could not be read, named in an entry of their own at the end (a free name). */
async function errorList(zip: ZipWriter, errors: RestoreError[]): Promise<void> {
  const text = [
    'Cairn could not read these files; they are missing or incomplete in this archive:',
    '',
    ...errors.map((e) => `${e.path}\t${e.code}\t${e.message}`),
    '',
  ].join('\n');
  let name = 'CAIRN-ERRORS.txt';
  for (let i = 1; zip.has(name); i++) name = `CAIRN-ERRORS-${i}.txt`;
  await zip.file(name, { mtime: new Date() }, undefined, [new TextEncoder().encode(text)]);
}

async function zipFile(
  repo: Repository,
  zip: ZipWriter,
  name: string,
  node: Node,
  stream: AsyncGenerator<Uint8Array>,
  meta: { mtime: Date; mode: number },
  onBytes: (n: number) => void,
): Promise<void> {
  const size = contentSize(repo, node);
  // Read the first blob before the entry starts: a file that fails at once is left out whole.
  const first = await stream.next();
  async function* rest() {
    if (first.done) return;
    onBytes(first.value.length);
    yield first.value;
    for await (const b of stream) {
      onBytes(b.length);
      yield b;
    }
  }
  try {
    await zip.file(name, meta, size, rest(), knownCrc);
  } catch (e) {
    throw e instanceof CairnError ? new CairnError(e.code, `${e.message} (the archive holds this file truncated)`, { cause: e, detail: e.detail }) : e;
  }
}
