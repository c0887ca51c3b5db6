// The blobs the remaining snapshots use (restic data.FindUsedBlobs into an index-associated
// set): one byte per master-index entry, set at the entry `findEntry` gives for the blob, so
// a repository of a million blobs needs a megabyte here instead of a set of a million
// 64-character strings. Marking a tree is also what makes the walk visit each tree once,
// across all snapshots.

import { CairnError, throwIfAborted } from '../errors';
import type { ID } from '../id';
import type { MasterIndex } from '../index/master-index';
import type { BlobType } from '../pack/header';
import type { Repository } from '../repository/repository';
import { parseTree } from '../walker';
import { treeRefs } from './tree-refs';

/** How many missing blobs an error names (the count is always exact). */
const NAMED_MISSING = 20;

export class UsedBlobs {
  readonly index: MasterIndex;
  /** 1 at the canonical entry of every used blob (MasterIndex.canonicalEntry). */
  readonly marks: Uint8Array;
  #count = 0;
  readonly missing: { type: BlobType; id: ID }[] = [];
  missingCount = 0;

  constructor(index: MasterIndex) {
    this.index = index;
    this.marks = new Uint8Array(index.size);
  }

  /** Used blobs marked so far. */
  get count(): number {
    return this.#count;
  }

  /** Marks a blob used. False when it already was, or when no index lists it (then it counts as missing). */
  add(type: BlobType, id: ID): boolean {
    const e = this.index.findEntry(type, id);
    if (e < 0) {
      if (this.missingCount++ < NAMED_MISSING) this.missing.push({ type, id });
      return false;
    }
    if (this.marks[e]) return false;
    this.marks[e] = 1;
    this.#count++;
    return true;
  }

  /** `add` for an ID given as 64 hex characters at `bytes[at…]` (see MasterIndex.findEntryHex). */
  addHex(type: BlobType, bytes: Uint8Array, at: number): boolean {
    const e = this.index.findEntryHex(type, bytes, at);
    if (e < 0) return this.add(type, asciiID(bytes, at));
    if (this.marks[e]) return false;
    this.marks[e] = 1;
    this.#count++;
    return true;
  }

  has(type: BlobType, id: ID): boolean {
    const e = this.index.findEntry(type, id);
    return e >= 0 && this.marks[e] === 1;
  }

  /** Refuses to go on when a used blob is in no index (restic's "index is not complete"). */
  throwIfMissing(): void {
    if (this.missingCount === 0) return;
    const named = this.missing.map((m) => `${m.type}/${m.id.slice(0, 8)}`).join(', ');
    const more = this.missingCount > this.missing.length ? ` and ${this.missingCount - this.missing.length} more` : '';
    throw new CairnError(
      'BLOB_NOT_FOUND',
      `${this.missingCount} used blobs are not in the index (${named}${more}): data seems to be missing; prune will not start, to prevent (additional) data loss — run check`,
      { detail: { missing: this.missing.map((m) => m.id), count: this.missingCount } },
    );
  }
}

export interface FindUsedOptions {
  signal?: AbortSignal;
  /** Trees loaded at once (each a request unless its pack was read ahead). */
  concurrency?: number;
  /** After each snapshot's trees are all walked. */
  onSnapshot?: (done: number, total: number) => void;
}

/**
 * Marks every tree and data blob reachable from the snapshots' root trees. Each tree is read
 * once, even when many snapshots share it; a tree no index lists is recorded as missing (see
 * `throwIfMissing`) and not read. The trees of all snapshots are walked together, and tree
 * packs are read ahead meanwhile, so reading them does not wait pack after pack.
 */
export async function findUsedBlobs(repo: Repository, roots: readonly ID[], used: UsedBlobs, opts: FindUsedOptions = {}): Promise<void> {
  const ahead = repo.readTreesAhead({ signal: opts.signal }).catch(() => {});
  try {
    await walkTrees(repo, roots, used, opts);
  } finally {
    await ahead;
  }
}

/**
 * Every tree below the roots, `concurrency` loads in flight. The queue is a stack (depth
 * first): it holds the pending siblings along the paths being walked, not whole levels. A
 * snapshot counts as done once the trees first reached through it are all read.
 */
async function walkTrees(repo: Repository, roots: readonly ID[], used: UsedBlobs, opts: FindUsedOptions): Promise<void> {
  const queue: { id: ID; root: number }[] = [];
  const pending = new Array<number>(roots.length).fill(0);
  let done = 0;
  const finished = (root: number) => {
    if (--pending[root]! === 0) opts.onSnapshot?.(++done, roots.length);
  };
  roots.forEach((id, root) => {
    pending[root] = 1;
    if (used.add('tree', id)) queue.push({ id, root });
    else finished(root);
  });
  const limit = Math.max(1, opts.concurrency ?? 8);
  let running = 0;
  let failure: unknown;
  const visit = async ({ id, root }: { id: ID; root: number }) => {
    throwIfAborted(opts.signal);
    const bytes = await repo.loadBlob('tree', id, opts.signal);
    const refs = treeRefs(bytes);
    const subtree = (child: ID) => {
      pending[root]!++;
      queue.push({ id: child, root });
    };
    if (refs) {
      for (const at of refs.data) used.addHex('data', bytes, at);
      for (const at of refs.trees) if (used.addHex('tree', bytes, at)) subtree(asciiID(bytes, at));
    } else {
      for (const node of parseTree(bytes, id).nodes) {
        if (node.type === 'file') for (const b of node.content ?? []) used.add('data', b);
        else if (node.type === 'dir' && node.subtree && used.add('tree', node.subtree)) subtree(node.subtree);
      }
    }
    finished(root);
  };
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (failure === undefined && running < limit && queue.length > 0) {
        running++;
        visit(queue.pop()!).then(
          () => {
            running--;
            pump();
          },
          (e: unknown) => {
            running--;
            failure ??= e;
            pump();
          },
        );
      }
      if (running === 0 && (queue.length === 0 || failure !== undefined)) resolve();
    };
    pump();
  });
  if (failure !== undefined) throw failure;
}

/** The 64 ASCII characters at `bytes[at…]` as an ID string. */
function asciiID(bytes: Uint8Array, at: number): ID {
  return String.fromCharCode(...bytes.subarray(at, at + 64));
}
