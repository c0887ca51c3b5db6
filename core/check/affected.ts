// Which files a check's findings touch: the damaged blobs (a blob that failed to decode or that
// its pack's header does not list, every blob of a pack that is missing or has the wrong size,
// a tree that cannot be loaded) looked up in every snapshot, so a user reads "photos/a.jpg in snapshot 1a2b3c4d"
// instead of a pack ID. Each tree is read once: what lies damaged below a tree is remembered by
// its ID, and snapshots sharing subtrees share the answer.

import { serializeError, throwIfAborted, type ErrorCode } from '../errors';
import type { Node } from '../data/node';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import { listSnapshots, type SnapshotEntry } from '../repository/snapshots';
import { loadTree } from '../walker';
import type { CheckProblem } from './problems';

/** A file (or a folder whose listing is damaged) that cannot be restored whole. */
export interface AffectedPath {
  snapshot: ID;
  /** Components from the snapshot's root. */
  path: string[];
  /** The damaged blob: a data blob of the file, or the folder's own tree. */
  blob: ID;
  /** 'tree': the folder's listing is unreadable, so everything below it is lost too. */
  kind: 'file' | 'tree';
}

/** Problems of these kinds make every blob the index lists for their pack unreadable. */
const WHOLE_PACK: ReadonlySet<CheckProblem['kind']> = new Set(['pack-missing', 'pack-size']);

/**
 * The blob IDs a check's problems name as damaged: blobs that failed, trees that could not be
 * loaded, and every blob of a pack that is gone or has the wrong size. (A pack whose header
 * alone is unreadable still has its blobs checked one by one: those that fail are named.)
 */
export function damagedBlobs(problems: readonly CheckProblem[], index: { entries(): Iterable<{ id: ID; packID: ID }> }): Set<ID> {
  const out = new Set<ID>();
  const lostPacks = new Set<ID>();
  for (const p of problems) {
    if (p.hint) continue;
    if (p.blob && (p.kind === 'blob' || p.kind === 'tree' || p.kind === 'snapshot' || p.kind === 'pack-header')) out.add(p.blob);
    else if (p.pack && WHOLE_PACK.has(p.kind)) lostPacks.add(p.pack);
  }
  if (lostPacks.size) for (const e of index.entries()) if (lostPacks.has(e.packID)) out.add(e.id);
  return out;
}

interface Hit {
  path: string[];
  blob: ID;
  kind: AffectedPath['kind'];
}

export interface AffectedOptions {
  signal?: AbortSignal;
  /** Stop collecting after this many paths (the rest is counted in `more`). */
  limit?: number;
  onTreeError?: (tree: ID, code: ErrorCode) => void;
}

export interface AffectedResult {
  paths: AffectedPath[];
  /** Paths found beyond `limit`. */
  more: number;
}

/** Every path in `snapshots` that holds one of `damaged`, newest snapshot first. */
export async function affectedPaths(
  repo: Repository,
  snapshots: readonly SnapshotEntry[],
  damaged: ReadonlySet<ID>,
  opts: AffectedOptions = {},
): Promise<AffectedResult> {
  const result: AffectedResult = { paths: [], more: 0 };
  if (damaged.size === 0) return result;
  const below = new Map<ID, Hit[]>();
  const limit = opts.limit ?? 1000;
  const ordered = [...snapshots].sort((a, b) => b.snapshot.time.compare(a.snapshot.time));
  for (const { id, snapshot } of ordered) {
    const hits = damaged.has(snapshot.tree)
      ? [{ path: [], blob: snapshot.tree, kind: 'tree' as const }]
      : await hitsBelow(repo, snapshot.tree, damaged, below, opts);
    for (const h of hits) {
      if (result.paths.length < limit) result.paths.push({ snapshot: id, ...h });
      else result.more++;
    }
  }
  return result;
}

/** What is damaged below tree `id` (paths relative to it), computed once per tree. */
async function hitsBelow(repo: Repository, id: ID, damaged: ReadonlySet<ID>, memo: Map<ID, Hit[]>, opts: AffectedOptions): Promise<Hit[]> {
  const known = memo.get(id);
  if (known) return known;
  throwIfAborted(opts.signal);
  const hits: Hit[] = [];
  let nodes: Node[];
  try {
    nodes = (await loadTree(repo, id, opts.signal)).nodes;
  } catch (e) {
    const code = serializeError(e).code;
    if (code === 'ABORTED') throw e;
    opts.onTreeError?.(id, code);
    nodes = [];
  }
  for (const node of nodes) {
    if (node.type === 'file') {
      const bad = (node.content ?? []).find((b) => damaged.has(b));
      if (bad) hits.push({ path: [node.name], blob: bad, kind: 'file' });
    } else if (node.type === 'dir' && node.subtree) {
      if (damaged.has(node.subtree)) hits.push({ path: [node.name], blob: node.subtree, kind: 'tree' });
      else for (const h of await hitsBelow(repo, node.subtree, damaged, memo, opts)) hits.push({ ...h, path: [node.name, ...h.path] });
    }
  }
  memo.set(id, hits);
  return hits;
}

/** Paths listed per blob in check's messages at most. */
const PER_BLOB = 5;

/** For each blob in `blobs`: up to five "path (snapshot 1234abcd)" entries, for check's messages. */
export async function filesUsing(repo: Repository, blobs: ReadonlySet<ID>, signal?: AbortSignal): Promise<Map<ID, string[]>> {
  const found = new Map<ID, string[]>();
  if (blobs.size === 0) return found;
  const snapshots = await listSnapshots(repo, { signal, onError: () => {} });
  const { paths } = await affectedPaths(repo, snapshots, blobs, { signal, limit: Number.MAX_SAFE_INTEGER });
  for (const p of paths) {
    const list = found.get(p.blob) ?? [];
    const entry = `/${p.path.join('/')} (snapshot ${p.snapshot.slice(0, 8)})`;
    if (list.length < PER_BLOB && !list.includes(entry)) list.push(entry);
    found.set(p.blob, list);
  }
  return found;
}
