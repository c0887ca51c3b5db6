// Page side of the kept listing (../cache/last-view.ts): read once at start-up, before the
// engine worker is up. Resolves undefined when there is none or it cannot be read; never
// rejects (the engine's own answer follows anyway).

import { recallList, recallView, type LastView } from '../cache/last-view';
import type { SnapshotView } from '../api';
import { readViewOnce } from '../cache/db';
import type { RepoLocation } from '../api';
import { locationKey } from '../location-key';

export type { LastView };

export function recallLastView(loc: RepoLocation, id: string, path: string[]): Promise<LastView | undefined> {
  return recallView(locationKey(loc), { id, path }, readViewOnce).catch(() => undefined);
}

export function recallLastList(loc: RepoLocation): Promise<SnapshotView[] | undefined> {
  return recallList(locationKey(loc), readViewOnce).catch(() => undefined);
}
