// Rewriting a snapshot's trees node by node (restic internal/walker/rewriter.go): each node may
// be kept, changed or dropped, directories are rewritten below first, and every changed tree is
// stored as a new tree blob. Trees that come out unchanged keep their IDs, so a rewrite that
// drops nothing stores nothing. Shared by `rewrite` (excludes) and `repair snapshots`.

import { CairnError } from '../errors';
import { encodeTree, type Node } from '../data';
import { hashID, type ID } from '../id';
import type { BlobUploader } from '../repository/blob-uploader';
import type { Repository } from '../repository/repository';
import { loadTree } from '../walker';

/** Returns the node to keep (changed or not), or undefined to drop it. */
export type NodeRewrite = (node: Node, path: string) => Node | undefined;

export interface TreeRewriteOptions {
  rewriteNode?: NodeRewrite;
  /** Is an empty directory at `path` kept? (Default: yes.) */
  keepEmptyDirectory?: (path: string) => boolean;
  /**
   * A tree that cannot be loaded (missing, corrupt, or a directory without subtree): the nodes
   * to store in its place, or undefined to drop it. Default: the load error ends the rewrite.
   */
  rewriteFailedTree?: (id: ID | undefined, path: string, e: unknown) => Node[] | undefined;
  /**
   * Without it, a tree whose nodes do not encode back to exactly its bytes (fields this code
   * does not know) ends the rewrite instead of losing them, as restic refuses.
   */
  allowUnstableSerialization?: boolean;
  /** Rewrite a tree met twice twice (when rewriteNode counts what it sees). */
  disableNodeCache?: boolean;
  signal?: AbortSignal;
}

/** path.Join(dir, name) for the slash-separated paths restic hands to filters. */
export function joinPath(dir: string, name: string): string {
  return dir === '/' ? '/' + name : `${dir}/${name}`;
}

export class TreeRewriter {
  readonly #opts: TreeRewriteOptions;
  readonly #replaced = new Map<ID, ID | undefined>();

  constructor(opts: TreeRewriteOptions = {}) {
    this.#opts = opts;
  }

  /** The new ID of the tree at `path`, or undefined when it is dropped. */
  async rewrite(repo: Repository, uploader: BlobUploader, path: string, id: ID | undefined): Promise<ID | undefined> {
    if (id && this.#replaced.has(id)) return this.#replaced.get(id);
    let nodes: Node[];
    try {
      if (!id) throw new CairnError('BAD_TREE', `directory ${JSON.stringify(path)} has no subtree`);
      nodes = (await loadTree(repo, id, this.#opts.signal)).nodes;
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      if (!this.#opts.rewriteFailedTree) throw e;
      const replacement = this.#opts.rewriteFailedTree(id, path, e);
      return replacement ? (await uploader.save('tree', encodeTree(replacement))).id : undefined;
    }
    if (!this.#opts.allowUnstableSerialization && (await hashID(encodeTree(nodes))) !== id) {
      throw new CairnError('BAD_TREE', `cannot encode tree at ${JSON.stringify(path)} without losing information`, { detail: { tree: id } });
    }
    const out = await this.#rewriteNodes(repo, uploader, path, nodes);
    if (out.length === 0 && !(this.#opts.keepEmptyDirectory?.(path) ?? true)) return undefined;
    const newID = (await uploader.save('tree', encodeTree(out))).id;
    if (!this.#opts.disableNodeCache) this.#replaced.set(id, newID);
    return newID;
  }

  async #rewriteNodes(repo: Repository, uploader: BlobUploader, path: string, nodes: Node[]): Promise<Node[]> {
    const out: Node[] = [];
    for (const original of nodes) {
      const at = joinPath(path, original.name);
      const node = this.#opts.rewriteNode ? this.#opts.rewriteNode(original, at) : original;
      if (!node) continue;
      if (node.type !== 'dir') {
        out.push(node);
        continue;
      }
      const subtree = await this.rewrite(repo, uploader, at, node.subtree);
      if (subtree === undefined) continue;
      out.push(subtree === node.subtree ? node : { ...node, subtree });
    }
    return out;
  }
}
