// A cache for sealed blobs, consulted by Repository.loadBlob before the backend (restic keeps
// tree packs in its local cache for the same reason: browsing must not re-download trees).
// It holds blobs *as stored* — still encrypted — and loadBlob verifies whatever it returns
// (MAC, then SHA-256), so a stale or damaged entry is simply skipped. The browser's
// implementation lives in IndexedDB (workers/cache); Node has none.

import type { ID } from '../id';
import type { BlobType } from '../pack/header';

export interface BlobCache {
  /** Which blob types are worth caching (the app caches trees, never file data). */
  wants(type: BlobType): boolean;
  get(type: BlobType, id: ID): Promise<Uint8Array | undefined>;
  put(type: BlobType, id: ID, sealed: Uint8Array): Promise<void>;
  /** A cached copy failed verification: forget it. */
  drop(type: BlobType, id: ID): Promise<void>;
}
