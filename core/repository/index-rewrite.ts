// Rewriting index files without some packs (restic MasterIndex.Rewrite): every index file that
// lists an excluded pack, or a pack an earlier file already listed with the same blobs, is
// replaced by new files holding the rest; the others stay as they are. New files are written
// before the old ones are removed, so no moment exists where a stored pack is in no index.

import { throwIfAborted } from '../errors';
import type { ID } from '../id';
import { decodeIndex, type IndexPack } from '../index/index-file';
import { mapLimit } from '../concurrency/concurrency';
import { INDEX_MAX_BLOBS } from './blob-uploader';
import type { Repository } from './repository';

export interface RewriteIndexOptions {
  /** Packs no index file may list afterwards. */
  exclude: ReadonlySet<ID>;
  /** Index files to process (default: all stored ones); others are left alone. */
  indexes?: readonly ID[];
  /** Index files to remove besides the rewritten ones (unreadable ones, say). */
  obsolete?: readonly ID[];
  signal?: AbortSignal;
  /** An old index file could not be removed (a later run or prune removes it). */
  onRemoveError?: (id: ID, e: unknown) => void;
}

export interface RewriteIndexResult {
  written: ID[];
  removed: ID[];
}

/** A pack's entry as a comparable string (restic PackBlobsHash). */
function packKey(p: IndexPack): string {
  const blobs = p.blobs.map((b) => `${b.type}:${b.id}:${b.offset}:${b.length}:${b.uncompressedLength}`).sort();
  return p.id + '|' + blobs.join(',');
}

export async function rewriteIndexes(repo: Repository, opts: RewriteIndexOptions): Promise<RewriteIndexResult> {
  const { signal } = opts;
  const ids = opts.indexes ?? (await repo.listIDs('index', signal));
  const loaded = await mapLimit(ids, 8, async (id) => ({ id, packs: decodeIndex(await repo.loadJSON('index', id, signal), id) }));
  const seen = new Set<string>();
  const obsolete = new Set<ID>(opts.obsolete ?? []);
  const keep: IndexPack[] = [];
  // Files in the order given; a file is kept only if nothing in it changes.
  for (const { id, packs } of loaded) {
    const keys = packs.map(packKey);
    const untouched = packs.every((p) => !opts.exclude.has(p.id)) && keys.every((k) => !seen.has(k)) && new Set(keys).size === keys.length;
    if (untouched) {
      for (const k of keys) seen.add(k);
      continue;
    }
    obsolete.add(id);
    packs.forEach((p, i) => {
      if (opts.exclude.has(p.id) || seen.has(keys[i]!)) return;
      seen.add(keys[i]!);
      keep.push(p);
    });
  }
  const written = await saveIndexFiles(repo, keep, signal);
  throwIfAborted(signal);
  const removed: ID[] = [];
  for (const id of obsolete) {
    try {
      await repo.backend.remove({ type: 'index', name: id }, { signal });
      removed.push(id);
    } catch (e) {
      opts.onRemoveError?.(id, e);
    }
  }
  return { written, removed };
}

/** Writes `packs` into index files of at most INDEX_MAX_BLOBS blobs each (none if empty). */
export async function saveIndexFiles(repo: Repository, packs: readonly IndexPack[], signal?: AbortSignal): Promise<ID[]> {
  const files: IndexPack[][] = [];
  let cur: IndexPack[] = [];
  let blobs = 0;
  for (const p of packs) {
    if (cur.length && blobs + p.blobs.length > INDEX_MAX_BLOBS) {
      files.push(cur);
      cur = [];
      blobs = 0;
    }
    cur.push(p);
    blobs += p.blobs.length;
  }
  if (cur.length) files.push(cur);
  return mapLimit(files, 4, (f) => repo.saveIndex(f, signal));
}
