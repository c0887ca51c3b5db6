// Which snapshots the offline cache holds completely (every tree), kept in the engine's
// IndexedDB beside the cache itself and deleted with it (db.clearRepository).

import type { ID } from '../../core/id';
import type { FillRecords } from '../engine/offline-fill';
import type { OutlineStore } from '../engine/name-index';
import * as db from './db';

export const offlineRecords: FillRecords = {
  complete: async (repoId) => new Set(await db.completeSnapshots(repoId)),
  markComplete: (repoId, snapshot: ID) => db.putCompleteSnapshot(repoId, snapshot),
};

/** Search's outlines and name lists (../engine/name-index.ts), sealed, beside the cached trees. */
export function outlineStore(repoId: string): OutlineStore {
  return {
    all: (kind) => db.allObjects(repoId, kind),
    names: (kind) => db.objectNames(repoId, kind),
    put: (kind, records) => db.putObjects(repoId, kind, records),
  };
}
