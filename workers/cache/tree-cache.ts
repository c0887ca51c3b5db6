// Tree blobs for offline browsing: the sealed bytes as read from their pack (or as a backup
// sealed them), in IndexedDB under the repository's ID. Repository.loadBlob verifies whatever
// comes back from here.
//
// Puts are gathered and written in one transaction per batch: a backup of 50 000 files adds
// thousands of trees, and an IndexedDB transaction each would cost a commit each.

import type { BlobCache } from '../../core/repository/blob-cache';
import { noteRefusal, type CacheStats } from './cached-backend';
import * as db from './db';

/** A batch is written once it holds this many bytes, else at the next turn of the event loop. */
const BATCH_BYTES = 4 << 20;

interface Batch {
  objects: { name: string; bytes: Uint8Array }[];
  bytes: number;
  timer: ReturnType<typeof setTimeout>;
  done: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export function treeCache(repoId: string, stats: CacheStats): BlobCache {
  let open: Batch | undefined;

  const write = (b: Batch): void => {
    if (open === b) open = undefined;
    clearTimeout(b.timer);
    db.putObjects(repoId, 'tree', b.objects).then(b.resolve, (e: unknown) => {
      noteRefusal(stats, e);
      b.reject(e);
    });
  };

  const batch = (): Batch => {
    if (open) return open;
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const b: Batch = { objects: [], bytes: 0, timer: setTimeout(() => write(b), 0), done, resolve, reject };
    return (open = b);
  };

  return {
    wants: (type) => type === 'tree',
    async get(_type, id) {
      const hit = await db.getObject(repoId, 'tree', id);
      if (hit) stats.hits++;
      else stats.misses++;
      return hit;
    },
    put(_type, id, sealed) {
      const b = batch();
      b.objects.push({ name: id, bytes: sealed });
      b.bytes += sealed.length;
      if (b.bytes >= BATCH_BYTES) write(b);
      return b.done;
    },
    drop: (_type, id) => db.deleteObject(repoId, 'tree', id),
  };
}
