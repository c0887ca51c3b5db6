// The warm start's first picture: the last folder listing shown, kept for repositories that
// stay unlocked on this device, so a reload can show it before the engine worker is up. It is
// sealed (AES-GCM) under the same non-extractable key as the remembered master key, on that
// key's record: it exists exactly as long as the key does, and whoever can read it could
// already open the repository. Opened by the small last-view worker (../last-view.worker.ts),
// never by the page; the engine confirms it with a fresh listing right after.

import type { NodeView, SnapshotView } from '../api';
import * as db from './db';

export interface LastView {
  snapshot: SnapshotView;
  /** Components from the snapshot root ([] = the root). */
  path: string[];
  entries: NodeView[];
}

/** Listings longer than this are not kept (the first picture should be cheap to open). */
export const LAST_VIEW_MAX_ENTRIES = 1000;

const sameFolder = (a: { id: string; path: string[] }, b: { id: string; path: string[] }) => a.id === b.id && a.path.length === b.path.length && a.path.every((c, i) => c === b.path[i]);

/** Seals `view` onto the remembered record of `locationKey` (for repository `repoId`). */
export async function rememberView(locationKey: string, repoId: string, view: LastView): Promise<boolean> {
  if (view.entries.length > LAST_VIEW_MAX_ENTRIES) return false;
  const r = await db.getRemembered(locationKey);
  if (!r || r.repoId !== repoId) return false;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, r.wrapKey, new TextEncoder().encode(JSON.stringify(view)));
  return db.putRememberedView(locationKey, r.at, { iv, sealed });
}

/** The kept listing of snapshot `at.id`, folder `at.path`, if that is what was last shown. */
export async function recallView(locationKey: string, at: { id: string; path: string[] }): Promise<LastView | undefined> {
  const r = await db.getRemembered(locationKey);
  if (!r?.view) return undefined;
  try {
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: r.view.iv as Uint8Array<ArrayBuffer> }, r.wrapKey, r.view.sealed);
    const v = JSON.parse(new TextDecoder().decode(plain)) as LastView;
    return sameFolder({ id: v.snapshot.id, path: v.path }, at) ? v : undefined;
  } catch {
    return undefined; // sealed under an older key: the engine's next listing replaces it
  }
}
