// Tree blobs for offline browsing: the sealed bytes as read from their pack, in IndexedDB
// under the repository's ID. Repository.loadBlob verifies whatever comes back from here.

import type { BlobCache } from '../../core/repository/blob-cache';
import type { CacheStats } from './cached-backend';
import * as db from './db';

export function treeCache(repoId: string, stats: CacheStats): BlobCache {
  return {
    wants: (type) => type === 'tree',
    async get(_type, id) {
      const hit = await db.getObject(repoId, 'tree', id);
      if (hit) stats.hits++;
      else stats.misses++;
      return hit;
    },
    put: (_type, id, sealed) => db.putObject(repoId, 'tree', id, sealed),
    drop: (_type, id) => db.deleteObject(repoId, 'tree', id),
  };
}
