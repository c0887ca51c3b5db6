// The warm start's head start. When the last repository opens without a password ("stay
// unlocked"), its location (never a secret: S3 keys live encrypted in IndexedDB, the master key
// in the engine's own database) is also kept in localStorage, which can be read synchronously
// before the UI's modules load. main.ts (the small entry) then, before loading the UI:
//  - reads the listing kept from the last visit of the folder the page opens on
//    (workers/client/last-view.ts: one IndexedDB record, opened by WebCrypto), and draws it at once with plain DOM
//    (./early-listing.ts), before the UI's bundle runs (main.ts waits for it, 150 ms at most);
//  - starts the engine worker and asks it to unlock at once, while the page still loads the UI
//    and its IndexedDB list; app start-up adopts that answer if the list agrees
//    (../state/app.svelte.ts), and the engine's fresh listing replaces the kept one.

import type { RepoInfo, SnapshotView } from '../../workers/api';
import { recallLastList, recallLastView, type LastView } from '../../workers/client/last-view';
import { showEarlyListing, showEarlySnapshotList } from './early-listing';
import { parseHash } from './routes';
import type { RememberedRepo, StoredLocation } from './db';
import { engine } from './engine';
import { sameLocation, toEngine } from './locations';

const HINT_KEY = 'cairn:auto-unlock';

interface BootHint {
  id: string;
  location: Exclude<StoredLocation, { kind: 'folder' }>;
}

let early: { hint: BootHint; info: Promise<RepoInfo>; snapshots?: Promise<SnapshotView[]> } | undefined;
let lastView: Promise<LastView | undefined> = Promise.resolve(undefined);
let lastList: Promise<SnapshotView[] | undefined> = Promise.resolve(undefined);
let firstPicture: Promise<unknown> = Promise.resolve();

/** Records (or clears) which repository the next start may unlock before the UI is up. */
export function writeBootHint(entry: RememberedRepo | undefined): void {
  try {
    if (entry?.autoUnlock && entry.location.kind !== 'folder')
      localStorage.setItem(HINT_KEY, JSON.stringify({ id: entry.id, location: entry.location } satisfies BootHint));
    else localStorage.removeItem(HINT_KEY);
  } catch {
    // storage disabled: the start is only slower
  }
}

function readBootHint(): BootHint | undefined {
  try {
    const h = JSON.parse(localStorage.getItem(HINT_KEY) ?? 'null') as BootHint | null;
    return h && typeof h.id === 'string' && (h.location?.kind === 'opfs' || h.location?.kind === 's3') ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Called first thing by web/main.ts: starts the engine worker and, if hinted, the unlock and the kept listing. */
export function bootEngine(): void {
  const hint = readBootHint();
  const loc = hint && toEngine(hint.location);
  // Reopening a folder of a snapshot: its listing as last shown, if kept (see
  // workers/cache/last-view.ts). On two cores, the engine worker's much larger script would
  // compete with that read and its drawing, so the engine waits for it (150 ms at most).
  const route = parseHash(location.hash);
  if (loc && route.name === 'snapshot') {
    lastView = recallLastView(loc, route.id, route.path);
    void lastView.then((v) => v && showEarlyListing(v));
    firstPicture = Promise.race([lastView, new Promise((r) => setTimeout(r, 150))]);
  }
  // The snapshot list (and the overview, which counts it) start from the kept list likewise.
  if (loc && (route.name === 'snapshots' || route.name === 'dashboard')) {
    lastList = recallLastList(loc);
    if (route.name === 'snapshots') {
      void lastList.then((l) => l && showEarlySnapshotList(l));
      firstPicture = Promise.race([lastList, new Promise((r) => setTimeout(r, 150))]);
    }
  }
  const start = () => {
    try {
      return engine();
    } catch {
      return undefined; // reported when the app first uses it
    }
  };
  if (!hint || !loc) {
    start();
    return;
  }
  performance.mark('cairn:unlock-start');
  const info = firstPicture.then(() => {
    const e = start() ?? engine(); // the second call rethrows the start failure
    return e.unlockRemembered(loc, { offline: loc.kind === 's3' && !navigator.onLine });
  });
  info.catch(() => {}); // looked at by adoptEarlyUnlock
  // The list the snapshot list or the overview will ask for first, asked for as soon as the
  // repository is open (one round trip less on the way to the first fresh list).
  const wantsList = route.name === 'snapshots' || route.name === 'dashboard';
  const snapshots = wantsList ? info.then(() => engine().listSnapshots()) : undefined;
  snapshots?.catch(() => {});
  early = { hint, info, snapshots };
}

/**
 * The unlock bootEngine started, if it was for `entry` (handed out once). One for anything else
 * is waited for and closed first, so it cannot land after, and replace, the right one.
 */
export async function adoptEarlyUnlock(
  entry: RememberedRepo | undefined,
): Promise<{ info: Promise<RepoInfo>; snapshots?: Promise<SnapshotView[]> } | undefined> {
  const e = early;
  early = undefined;
  if (!e) return undefined;
  if (entry && e.hint.id === entry.id && sameLocation(e.hint.location, entry.location)) return { info: e.info, snapshots: e.snapshots };
  if (
    await e.info.then(
      () => true,
      () => false,
    )
  )
    await engine().closeRepository();
  return undefined;
}

/** Settles once the kept listing is drawn, or there is none, or 150 ms passed: then the UI loads. */
export const uiMayLoad = (): Promise<unknown> => firstPicture;

/**
 * The kept listing of the folder the page opened on, for the repository the start-up hint
 * names (undefined when there is none). Show it only until app start-up knows the hinted
 * repository is the one being opened; the engine's fresh listing replaces it.
 */
export const earlyLastView = (): Promise<LastView | undefined> => lastView;

/** The kept snapshot list of the hinted repository (undefined when none); the same rules as earlyLastView. */
export const earlyLastList = (): Promise<SnapshotView[] | undefined> => lastList;
