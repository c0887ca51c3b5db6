// Restores a snapshot (or a sub-tree of it) into a RestoreTarget. Like restic's restorer it
// plans by pack: every pack is read once, in one ranged request covering the blobs needed,
// and each blob (verified against its SHA-256) is written to every file position that needs
// it. A blob that cannot be read fails only the files that contain it.

import { CairnError, serializeError, throwIfAborted, type ErrorCode } from '../errors';
import type { Node } from '../data/node';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { decodeBlob, plainLength } from '../repository/blob-codec';
import type { BlobLocation } from '../index/master-index';
import { ProgressTracker, type ProgressSnapshot } from '../progress';
import { mapLimit } from '../concurrency/concurrency';
import { FILE_GARBAGE, smallGarbageMade } from '../memory/garbage';
import { Semaphore } from '../backend/limit';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { childMayMatchAny, matchAny, type Pattern } from '../filter/pattern';
import { walk } from '../walker';
import { invalidNameError } from '../data/node-name';
import type { FileWriter, RestoreTarget } from './target';

export interface RestoreOptions {
  /** Only entries matching one of these (or inside a matching directory) are restored. */
  include?: Pattern[];
  exclude?: Pattern[];
  /** Paths in include/exclude are matched against these leading components + the walk path. */
  pathPrefix?: string[];
  signal?: AbortSignal;
  onProgress?: (p: ProgressSnapshot) => void;
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

/**
 * Decodes `blobs` (offsets relative to `bytes`) of one pack range, in place (with `own`, each
 * into an ArrayBuffer of its own; with `together` too, all into one new ArrayBuffer). `bytes`
 * may be handed to another thread and come back as the returned `bytes`; each result is the
 * plain blob (verified; with `crc`, its CRC-32 too) or the error for that blob alone.
 */
export type PackDecoder = (
  key: Repository['key'],
  bytes: Uint8Array,
  blobs: BlobLocation[],
  signal?: AbortSignal,
  opts?: { crc?: boolean; own?: boolean; together?: boolean },
) => Promise<{ bytes: Uint8Array; results: ({ plain: Uint8Array; crc?: number } | { error: unknown })[] }>;

/** Plaintext one decode request of restore's carries at most (a larger blob goes alone). */
export const DECODE_GROUP_BYTES = 4 << 20;

/** Splits a pack's blobs (in pack order) into runs of at most DECODE_GROUP_BYTES of plaintext. */
function decodeGroups<T extends { loc: BlobLocation }>(list: T[]): T[][] {
  const groups: T[][] = [];
  let cur: T[] = [];
  let n = 0;
  for (const b of list) {
    const plain = plainLength(b.loc.length, b.loc.uncompressedLength);
    if (cur.length && n + plain > DECODE_GROUP_BYTES) {
      groups.push(cur);
      cur = [];
      n = 0;
    }
    cur.push(b);
    n += plain;
  }
  if (cur.length) groups.push(cur);
  return groups;
}

/**
 * What a buffer for one group's ciphertext (readGroups) is made at least: a group's
 * plaintext is at most DECODE_GROUP_BYTES (or one larger blob), its ciphertext that plus
 * 32 bytes a blob, or less where compressed.
 */
const GROUP_BUFFER_SIZE = DECODE_GROUP_BYTES + (1 << 20);

/** A stored blob this big on average is worth decoding in place rather than copying out. */
const IN_PLACE_BLOB = 64 << 10;

/**
 * Most of these blobs' plaintext is stored as is (not compressed), in blobs of IN_PLACE_BLOB
 * or more on average: few writes, so the pack's buffer is not held long, and copying them out
 * would cost more than holding it.
 */
function decodeInPlace(list: { loc: BlobLocation }[]): boolean {
  let stored = 0,
    storedBlobs = 0,
    all = 0;
  for (const { loc } of list) {
    const plain = plainLength(loc.length, loc.uncompressedLength);
    all += plain;
    if (!loc.uncompressedLength) {
      stored += plain;
      storedBlobs++;
    }
  }
  return stored * 2 > all && stored >= storedBlobs * IN_PLACE_BLOB;
}

export interface RestoreError {
  path: string;
  code: ErrorCode;
  message: string;
}

export interface RestoreResult {
  files: number;
  dirs: number;
  bytes: number;
  errors: RestoreError[];
}

interface PlannedFile {
  path: string[];
  node: Node;
  remaining: number;
  writer?: Promise<FileWriter>;
  failed?: boolean;
}

interface Use {
  file: PlannedFile;
  offset: number;
}

export async function restore(repo: Repository, treeID: ID, target: RestoreTarget, opts: RestoreOptions = {}): Promise<RestoreResult> {
  const signal = opts.signal;
  const progress = new ProgressTracker('restoring', opts.onProgress);
  const errors: RestoreError[] = [];
  const fail = (path: string[], e: unknown) => {
    const s = serializeError(e);
    errors.push({ path: '/' + path.join('/'), code: s.code, message: s.message });
    progress.errors++;
  };
  await repo.loadIndex({ signal });

  const prefix = opts.pathPrefix ?? [];
  const selected = (path: string[]) => {
    const full = [...prefix, ...path];
    if (opts.exclude?.length && matchAny(opts.exclude, full)) return false;
    return !opts.include?.length || matchAny(opts.include, full);
  };
  const mayDescend = (path: string[]) => {
    const full = [...prefix, ...path];
    if (opts.exclude?.length && matchAny(opts.exclude, full)) return false;
    // The list as a whole (restic ListWithChild), so a negated include can close a directory.
    return !opts.include?.length || childMayMatchAny(opts.include, full);
  };

  // Metadata on the open file where the target can, else after closing it.
  const complete = async (w: FileWriter, path: string[], node: Node) => {
    if (w.finish) return w.finish(node);
    await w.close();
    await target.setMetadata(path, node);
  };

  // 1. Walk: directories, symlinks and empty files now; plan the blobs of the others.
  const files: PlannedFile[] = [];
  const dirs: { path: string[]; node: Node }[] = [];
  const byPack = new Map<ID, Map<string, { loc: BlobLocation; uses: Use[] }>>();
  const result = { files: 0, dirs: 0, bytes: 0 };
  const made = new Set<string>();
  // Directories the target would not make (a name a browser refuses, say): reported once, and
  // what is in them is not attempted.
  const refused = new Set<string>();
  const ensureDir = async (path: string[]) => {
    // Most calls are for a directory already made (every file's own): one key, not one per
    // ancestor (D2 in Chromium: the ancestors' keys were 56 of the 318 MiB the engine's JS
    // allocated during the restore).
    if (path.length === 0 || made.has(path.join('/'))) return;
    for (let i = 1; i <= path.length; i++) {
      const k = path.slice(0, i).join('/');
      if (!made.has(k)) {
        made.add(k);
        await target.mkdir(path.slice(0, i)).catch((e) => {
          refused.add(k);
          throw e;
        });
      }
    }
  };

  const walker = walk(repo, treeID, {
    signal,
    enter: (item) => !refused.has(item.path.join('/')) && (selected(item.path) || mayDescend(item.path)),
    onTreeError: (path, _id, e) => fail(path, e),
    onInvalidName: (dir, node, problem) => fail([...dir, JSON.stringify(node.name)], invalidNameError(dir, node.name, problem)),
  });
  for await (const { path, node } of walker) {
    throwIfAborted(signal);
    const take = selected(path);
    if (node.type === 'dir') {
      if (take) {
        try {
          await ensureDir(path);
        } catch (e) {
          if (e instanceof CairnError && e.code === 'ABORTED') throw e;
          fail(path, e);
          continue;
        }
        dirs.push({ path, node });
        result.dirs++;
        if (!node.subtree) fail(path, new CairnError('BAD_TREE', `directory ${JSON.stringify(node.name)} has no subtree; its contents are lost`));
      }
      continue;
    }
    if (!take) continue;
    try {
      await ensureDir(path.slice(0, -1));
      if (node.type === 'symlink') await target.symlink(path, node.linkTarget ?? '');
      else if (node.type === 'file') {
        if (!node.content) throw new CairnError('BAD_TREE', `file ${JSON.stringify(node.name)} has no content list`);
        const content = node.content;
        const locs = content.map((id) => {
          const loc = repo.index.lookup('data', id);
          if (!loc) throw new CairnError('BLOB_NOT_FOUND', `data blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id } });
          return loc;
        });
        const f: PlannedFile = { path, node, remaining: content.length };
        files.push(f);
        progress.total.files++;
        progress.total.bytes += node.size ?? 0;
        let offset = 0;
        for (const loc of locs) {
          const id = loc.id;
          let pack = byPack.get(loc.packID);
          if (!pack) byPack.set(loc.packID, (pack = new Map()));
          let b = pack.get(id);
          if (!b) pack.set(id, (b = { loc, uses: [] }));
          b.uses.push({ file: f, offset });
          offset += loc.uncompressedLength || loc.length - 32;
        }
        if (content.length === 0) {
          await complete(await target.createFile(path, 0), path, node);
          result.files++;
          progress.done.files++;
        }
      } else continue; // devices, fifos, sockets: not restored (restic needs root for most)
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      fail(path, e);
    }
  }
  progress.totalsFinal = true;

  // 2. Read each pack once and write its blobs wherever they go.
  const finishFile = async (f: PlannedFile) => {
    // Fix: a file the target could not create (its writer promise rejected) or close, or
    // whose metadata cannot be set, used to reject here and abort the whole restore.
    try {
      const w = await f.writer!;
      if (f.failed) await w.close();
      else {
        await complete(w, f.path, f.node);
        result.files++;
      }
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      if (!f.failed) {
        f.failed = true;
        fail(f.path, e);
      }
    } finally {
      // All its blobs are written (remaining is 0): the plan lives on until the restore ends,
      // its finished writers need not. A browser's writer holds file handles whose memory
      // (~18 KiB per file in Chromium, bench/probes/handle-memory.mjs) stays while reachable:
      // D2's 50 000 files held 787-936 MiB in the page's renderer.
      f.writer = undefined;
    }
    // Its writer, handles and promises are garbage now, most of it where V8 does not see it.
    smallGarbageMade(FILE_GARBAGE);
    progress.done.files++;
  };
  const writerOf = (f: PlannedFile) => (f.writer ??= target.createFile(f.path, f.node.size ?? 0));

  // Writes, file creation and metadata are I/O: up to `writeConcurrency` of them run while
  // the next blobs are decrypted, so a pack of many small files is not restored one file
  // system call at a time.
  const writeSlots = new Semaphore(opts.writeConcurrency ?? 32);
  const writing = new Set<Promise<void>>();
  let fatal: { e: unknown } | undefined;
  const writeUse = async (use: Use, plain: Uint8Array | undefined, err: unknown) => {
    const f = use.file;
    try {
      if (plain && !f.failed) {
        await (await writerOf(f)).write(use.offset, plain);
        progress.done.bytes += plain.length;
        result.bytes += plain.length;
      } else if (!f.failed) {
        f.failed = true;
        await writerOf(f);
        fail(f.path, err);
      }
    } catch (e) {
      if (!f.failed) {
        f.failed = true;
        fail(f.path, e);
      }
    }
    if (--f.remaining === 0) await finishFile(f);
  };
  const startWrite = async (use: Use, plain: Uint8Array | undefined, err: unknown, packWrites: Promise<void>[]) => {
    await writeSlots.acquire(signal);
    const p: Promise<void> = writeUse(use, plain, err)
      .catch((e) => void (fatal ??= { e }))
      .finally(() => {
        writeSlots.release();
        writing.delete(p);
      });
    writing.add(p);
    packWrites.push(p);
  };

  // Pack buffers are reused (fresh pages cost more than the copy into them on some VMs), at
  // most one spare per pack read at once. One whose blobs were decrypted in place goes back
  // after their writes finish; one decoded in groups, once its last group is back.
  const concurrency = opts.concurrency ?? 4;
  const buffers: Uint8Array[] = [];
  const reuse = (b: Uint8Array) => {
    if (b.byteOffset === 0 && b.buffer.byteLength >= PACK_BUFFER_SIZE && buffers.length < concurrency) buffers.push(new Uint8Array(b.buffer));
  };

  // With readGroups, the buffers each group is read into: at most one spare per pack read at once.
  const groupBuffers: Uint8Array[] = [];
  const readRange = async (packID: ID, start: number, length: number, into: Uint8Array) => {
    const bytes = await repo.backend.load({ type: 'data', name: packID }, { offset: start, length, signal, into });
    if (bytes.length !== length) throw new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)} is shorter than its index says`);
    return bytes;
  };
  const rangeOf = (list: { loc: BlobLocation }[]) => {
    const start = list[0]!.loc.offset;
    return { start, end: list.reduce((m, b) => Math.max(m, b.loc.offset + b.loc.length), 0) };
  };
  /**
   * Decodes `groups` in order and writes each one's blobs (and drops them), the next group
   * decoding while this one is written.
   */
  const decodeAndWrite = async (
    groups: { uses: Use[] }[][],
    decode: (k: number) => Promise<({ plain: Uint8Array } | { error: unknown })[]>,
    packWrites: Promise<void>[],
  ) => {
    let next = decode(0);
    for (let k = 0; k < groups.length; k++) {
      const decoded = await next;
      if (k + 1 < groups.length) {
        next = decode(k + 1);
        next.catch(() => {}); // awaited next round, unless this one is aborted
      }
      for (const [i, b] of groups[k]!.entries()) {
        const d = decoded[i]!;
        for (const use of b.uses) await startWrite(use, 'plain' in d ? d.plain : undefined, 'plain' in d ? undefined : d.error, packWrites);
        decoded[i] = { error: undefined }; // written or queued: the group need not hold it
        progress.tick();
      }
    }
  };

  try {
    await mapLimit(byPack, concurrency, async ([packID, blobs]) => {
      throwIfAborted(signal);
      if (fatal) throw fatal.e;
      const list = [...blobs.values()].sort((a, b) => a.loc.offset - b.loc.offset);
      const { start, end } = rangeOf(list);
      if (opts.readGroups && opts.decodePack && end - start >= 1 << 20 && !decodeInPlace(list)) {
        // Each group read, decoded (into a buffer of its own) and its buffer free again before
        // the next is read; the next group is read and decoded while this one is written.
        const groups = decodeGroups(list);
        const packWrites: Promise<void>[] = [];
        const decodeGroup = async (g: typeof list): Promise<({ plain: Uint8Array } | { error: unknown })[]> => {
          const r = rangeOf(g);
          let into = groupBuffers.pop();
          if (into && into.length < r.end - r.start) into = undefined;
          let bytes: Uint8Array;
          try {
            bytes = await readRange(packID, r.start, r.end - r.start, into ?? new Uint8Array(Math.max(r.end - r.start, GROUP_BUFFER_SIZE)));
          } catch (e) {
            if (e instanceof CairnError && e.code === 'ABORTED') throw e;
            if (into) groupBuffers.push(into);
            return g.map(() => ({ error: e }));
          }
          const d = await opts.decodePack!(
            repo.key,
            bytes,
            g.map((b) => ({ ...b.loc, offset: b.loc.offset - r.start })),
            signal,
            { own: true, together: true },
          );
          // (A decoder that ignored `own` would leave blobs in it: then the buffer is dropped.)
          const back = d.bytes;
          if (back.byteOffset === 0 && groupBuffers.length < concurrency && !d.results.some((x) => 'plain' in x && x.plain.buffer === back.buffer))
            groupBuffers.push(new Uint8Array(back.buffer));
          return d.results;
        };
        await decodeAndWrite(groups, (k) => decodeGroup(groups[k]!), packWrites);
        return;
      }
      let bytes: Uint8Array | undefined;
      let packError: unknown;
      let into = buffers.pop();
      if (into && into.length < end - start) into = undefined;
      try {
        bytes = await readRange(packID, start, end - start, into ?? new Uint8Array(Math.max(end - start, PACK_BUFFER_SIZE)));
      } catch (e) {
        if (e instanceof CairnError && e.code === 'ABORTED') throw e;
        packError = e;
      }
      const packWrites: Promise<void>[] = [];
      if (bytes && opts.decodePack && end - start >= 1 << 20) {
        // Decoded in groups of a few MiB of plaintext, the next while this one is written:
        // a pack of small blobs holds more plaintext than its own 16 MiB (D2's: ~7000 blobs,
        // ~28 MiB), and writing it blob by blob takes long. Each group comes back in a buffer
        // of its own, so the pack's buffer takes the next pack as soon as the last group is
        // decoded (D2 in Chromium held 6-8 of them, 17 MiB each, until every small file was
        // written). That costs a copy of the plaintext, one buffer per group (not per blob:
        // transfers cost). So a pack mostly of big stored blobs is decoded in place, in one
        // request, and its buffer waits for the writes (D1 in Chromium, all grouped: 19.5 →
        // 23.4 s, 5.5 CPU-s more).
        const inPlace = decodeInPlace(list);
        const groups = inPlace ? [list] : decodeGroups(list);
        const decodeGroup = async (k: number) => {
          const g = groups[k]!;
          const r = await opts.decodePack!(
            repo.key,
            bytes!,
            g.map((b) => ({ ...b.loc, offset: b.loc.offset - start })),
            signal,
            { own: !inPlace, together: !inPlace },
          );
          bytes = r.bytes;
          // (A decoder that ignored `own` would leave blobs in it: then it waits for the writes.)
          if (!inPlace && k === groups.length - 1 && !r.results.some((d) => 'plain' in d && d.plain.buffer === r.bytes.buffer)) {
            reuse(r.bytes);
            bytes = undefined;
          }
          return r.results;
        };
        await decodeAndWrite(groups, decodeGroup, packWrites);
      } else {
        for (const b of list) {
          let plain: Uint8Array | undefined;
          let err = packError;
          if (bytes) {
            try {
              plain = await decodeBlob(repo.key, bytes.subarray(b.loc.offset - start, b.loc.offset - start + b.loc.length), b.loc, true);
            } catch (e) {
              err = e;
            }
          }
          for (const use of b.uses) await startWrite(use, plain, err, packWrites);
          progress.tick();
        }
      }
      const held = bytes;
      if (held) void Promise.all(packWrites).then(() => reuse(held));
    });
  } finally {
    while (writing.size) await Promise.all(writing);
  }
  if (fatal) throw fatal.e;

  // 3. Directory metadata last, deepest first, so writing children does not bump their mtimes.
  for (const d of dirs.sort((a, b) => b.path.length - a.path.length)) {
    try {
      await target.setMetadata(d.path, d.node);
    } catch (e) {
      fail(d.path, e);
    }
  }
  progress.phase = 'done';
  progress.tick(true);
  return { ...result, errors };
}
