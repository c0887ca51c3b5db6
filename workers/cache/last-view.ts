// The warm start's first picture: the last folder listing shown, and the snapshot list, kept
// for repositories that stay unlocked on this device, so a reload can show them before the
// engine worker is up.
// Sealed (AES-GCM) under a key of its own, generated non-extractable, in the `views` store
// (./db.ts), which goes with the remembered master key: it exists only while that does, and
// whoever can read it could already open the repository.
//
// The page opens it itself (web/lib/boot.ts) — starting even a tiny worker cost 60–130 ms of
// the start here, more than everything else the picture needs. What the page touches: this one
// record (never the remembered master key's), and a decryption WebCrypto runs off the page's
// thread; the plaintext is file names and sizes, which the page shows anyway.

import type { NodeView, SnapshotView } from '../api';
import * as db from './db';

export interface LastView {
  snapshot: SnapshotView;
  /** Components from the snapshot root ([] = the root). */
  path: string[];
  entries: NodeView[];
}

/** What one sealed record holds: the last folder listing shown and the snapshot list, each once kept. */
interface Kept {
  folder?: LastView;
  list?: SnapshotView[];
}

/** Listings longer than this are not kept (the first picture should be cheap to open). */
const LAST_VIEW_MAX_ENTRIES = 1000;

const sameFolder = (a: { id: string; path: string[] }, b: { id: string; path: string[] }) =>
  a.id === b.id && a.path.length === b.path.length && a.path.every((c, i) => c === b.path[i]);

async function open(r: db.ViewRecord): Promise<Kept> {
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: r.iv as Uint8Array<ArrayBuffer> }, r.key, r.sealed);
  const v = JSON.parse(new TextDecoder().decode(plain)) as Kept | LastView;
  return 'entries' in v ? { folder: v } : v; // a record sealed before the list was kept holds the listing itself
}

/** Keeps run one after another: each reads the record the one before wrote. */
let queue: Promise<unknown> = Promise.resolve();

/** Seals `change` over what is kept for `locationKey` (repository `repoId`), if that repository is remembered here. */
function keep(locationKey: string, repoId: string, change: Kept): Promise<boolean> {
  const run = queue.then(() => keepNow(locationKey, repoId, change));
  queue = run.catch(() => {});
  return run;
}

async function keepNow(locationKey: string, repoId: string, change: Kept): Promise<boolean> {
  const r = await db.getRemembered(locationKey);
  if (!r || r.repoId !== repoId) return false;
  const kept = await db.getView(locationKey);
  const same = kept?.at === r.at;
  const before = same && kept ? await open(kept).catch(() => ({})) : {};
  const key = same && kept ? kept.key : await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(JSON.stringify({ ...before, ...change })));
  return db.putView({ locationKey, at: r.at, key, iv, sealed });
}

/** Seals `view` for `locationKey` (repository `repoId`), if that repository is remembered here. */
export async function rememberView(locationKey: string, repoId: string, view: LastView): Promise<boolean> {
  if (view.entries.length > LAST_VIEW_MAX_ENTRIES) return false;
  return keep(locationKey, repoId, { folder: view });
}

/** Seals the snapshot list (its newest LAST_VIEW_MAX_ENTRIES) the same way. */
export async function rememberList(locationKey: string, repoId: string, list: SnapshotView[]): Promise<boolean> {
  return keep(locationKey, repoId, { list: list.slice(-LAST_VIEW_MAX_ENTRIES) });
}

/** The kept listing of snapshot `at.id`, folder `at.path`, if that is what was last shown. */
export async function recallView(locationKey: string, at: { id: string; path: string[] }, read = db.getView): Promise<LastView | undefined> {
  const r = await read(locationKey);
  if (!r) return undefined;
  try {
    const v = (await open(r)).folder;
    return v && sameFolder({ id: v.snapshot.id, path: v.path }, at) ? v : undefined;
  } catch {
    return undefined; // unreadable: the engine's next listing replaces it
  }
}

/** The kept snapshot list (oldest first, as listSnapshots gives it), if one was kept. */
export async function recallList(locationKey: string, read = db.getView): Promise<SnapshotView[] | undefined> {
  const r = await read(locationKey);
  if (!r) return undefined;
  try {
    return (await open(r)).list;
  } catch {
    return undefined;
  }
}
