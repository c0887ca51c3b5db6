// restic's `dump` of a folder: every file, folder and symlink below a tree, in walk order,
// streamed into an archive (tar or ZIP) under the given path prefix; the folder itself is not
// an entry. A node whose name cannot be a path component, a tree that cannot be loaded and a
// file whose content fails are reported through onError and the rest still goes in (a failed
// file stays in the archive with its declared size, the unread part zero-filled for tar and
// cut short for ZIP).

import { CairnError, throwIfAborted } from '../errors';
import type { Node } from '../data/node';
import { ModeSetgid, ModeSetuid, ModeSticky } from '../data/file-mode';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { invalidNameError } from '../data/node-name';
import { walk } from '../walker';
import { lookahead } from './lookahead';
import type { PackDecoder } from './restorer';
import { TarWriter, type TarEntry, type TarSink } from './tar';
import { ZipWriter } from './zip';

export interface DumpWriter {
  entry(path: string[], node: Node, content: AsyncIterable<Uint8Array>): Promise<void>;
  finish(): Promise<void>;
}

export interface DumpOptions {
  signal?: AbortSignal;
  decodePack?: PackDecoder;
  onError: (path: string, e: unknown) => void;
}

/** restic dumpNodeTar's header for a node. */
function tarEntryOf(name: string, node: Node): TarEntry {
  const m = node.mode ?? 0;
  let mode = m & 0o777;
  if (m & ModeSetuid) mode |= 0o4000;
  if (m & ModeSetgid) mode |= 0o2000;
  if (m & ModeSticky) mode |= 0o1000;
  const id = (n: number) => (n === 0xffffffff ? 0 : n);
  const pax = new Map<string, Uint8Array>();
  for (const x of node.extendedAttributes ?? []) {
    // POSIX ACLs become SCHILY.acl.* text in restic; cairn leaves them out.
    if (!x.name.startsWith('system.posix_acl_')) pax.set('SCHILY.xattr.' + x.name, x.value ?? new Uint8Array());
  }
  return {
    name,
    type: node.type as TarEntry['type'],
    mode,
    uid: id(node.uid),
    gid: id(node.gid),
    uname: node.user,
    gname: node.group,
    mtimeNs: node.mtime.unixNanos(),
    size: node.size ?? 0,
    linkname: node.type === 'symlink' ? (node.linkTarget ?? '') : undefined,
    pax,
  };
}

export function tarDumpWriter(sink: TarSink): DumpWriter {
  const tar = new TarWriter(sink);
  return { entry: (path, node, content) => tar.add(tarEntryOf(path.join('/'), node), content), finish: () => tar.finish() };
}

export function zipDumpWriter(sink: (b: Uint8Array) => void | Promise<void>): DumpWriter {
  const zip = new ZipWriter(sink);
  return {
    async entry(path, node, content) {
      const name = path.join('/');
      const meta = { mtime: new Date(node.mtime.unixMillis()), mode: (node.mode ?? 0) & 0o7777 };
      if (node.type === 'dir') await zip.directory(name, meta);
      else if (node.type === 'symlink') await zip.symlink(name, meta, node.linkTarget ?? '');
      else await zip.file(name, meta, node.size ?? 0, content);
    },
    finish: () => zip.finish(),
  };
}

const DUMPED = new Set(['file', 'dir', 'symlink']);

/** Dumps everything below `tree` as entries named `prefix/…`; returns how many errors were reported. */
export async function dumpTree(repo: Repository, tree: ID, prefix: string[], writer: DumpWriter, opts: DumpOptions): Promise<number> {
  let errors = 0;
  const fail = (path: string, e: unknown) => {
    errors++;
    opts.onError(path, e);
  };
  const items = walk(
    repo,
    tree,
    {
      signal: opts.signal,
      onTreeError: (p, _id, e) => fail('/' + p.join('/'), e),
      onInvalidName: (dir, node, problem) => fail('/' + [...dir, JSON.stringify(node.name)].join('/'), invalidNameError(dir, node.name, problem)),
    },
    prefix,
  );
  const dumped = (async function* () {
    for await (const item of items) if (DUMPED.has(item.node.type)) yield item;
  })();
  for await (const { path, node, content } of lookahead(repo, dumped, { signal: opts.signal, decodePack: opts.decodePack })) {
    throwIfAborted(opts.signal);
    try {
      await writer.entry(path, node, content);
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      fail('/' + path.join('/'), e);
    }
  }
  await writer.finish();
  return errors;
}

/** A single file's content, blob by blob, verified. */
export async function* fileContent(repo: Repository, node: Node, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  for (const id of node.content ?? []) yield await repo.loadBlob('data', id, signal);
}
