// Streams one file's content in order, blob by blob, for downloads that cannot seek (a
// service-worker response, a ZIP entry). Each blob is loaded with repo.loadBlob, which checks
// its SHA-256 before a byte is handed out; a few blobs are fetched ahead so decryption and
// the network overlap, and that lookahead is the only memory used (≤ prefetch × 8 MiB).

import { CairnError } from '../errors';
import type { Node } from '../data/node';
import type { Repository } from '../repository/repository';
import { plainLength } from '../repository/blob-codec';

export interface FileStreamOptions {
  signal?: AbortSignal;
  /** Blobs loaded ahead of the one being consumed (default 4). */
  prefetch?: number;
}

/** The exact byte size of a file's content according to the index (what a stream yields). */
export function contentSize(repo: Repository, node: Node): number {
  let n = 0;
  for (const id of node.content ?? []) {
    const loc = repo.lookupBlob('data', id);
    if (!loc) throw new CairnError('BLOB_NOT_FOUND', `data blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id } });
    n += plainLength(loc.length, loc.uncompressedLength);
  }
  return n;
}

/** Yields the file's verified bytes, one blob at a time. */
export async function* fileContent(repo: Repository, node: Node, opts: FileStreamOptions = {}): AsyncGenerator<Uint8Array> {
  const ids = node.content ?? [];
  const ahead = Math.max(1, opts.prefetch ?? 4);
  const queue: Promise<Uint8Array>[] = [];
  let next = 0;
  const fill = () => {
    while (queue.length < ahead && next < ids.length) {
      const p = repo.loadBlob('data', ids[next++]!, opts.signal);
      p.catch(() => {}); // observed when its turn comes; never an unhandled rejection
      queue.push(p);
    }
  };
  fill();
  while (queue.length > 0) {
    const bytes = await queue.shift()!;
    fill();
    yield bytes;
  }
}
