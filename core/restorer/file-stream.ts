// The size of a file's content as its blobs add up (what a download of it streams; the
// streaming itself is ./lookahead.ts).

import { CairnError } from '../errors';
import type { Node } from '../data/node';
import type { Repository } from '../repository/repository';
import { plainLength } from '../repository/blob-codec';

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
