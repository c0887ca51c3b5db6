// The warm start's head start. When the last repository opens without a password ("stay
// unlocked"), its location (never a secret: S3 keys live encrypted in IndexedDB, the master key
// in the engine's own database) is also kept in localStorage, which can be read synchronously
// before the UI's modules run. main.ts then starts the engine worker and asks it to unlock at
// once, while the page still loads its IndexedDB list; app start-up adopts that answer if the
// list agrees (./../state/app.svelte.ts). This takes the page's IndexedDB open (~40 ms) and the
// module load of the UI off the path to a listed snapshot.

import type { RepoInfo } from '../../workers/api';
import type { RememberedRepo, StoredLocation } from './db';
import { engine } from './engine';
import { sameLocation, toEngine } from './locations';

const HINT_KEY = 'cairn:auto-unlock';

interface BootHint {
  id: string;
  location: Exclude<StoredLocation, { kind: 'folder' }>;
}

let early: { hint: BootHint; info: Promise<RepoInfo> } | undefined;

/** Records (or clears) which repository the next start may unlock before the UI is up. */
export function writeBootHint(entry: RememberedRepo | undefined): void {
  try {
    if (entry?.autoUnlock && entry.location.kind !== 'folder') localStorage.setItem(HINT_KEY, JSON.stringify({ id: entry.id, location: entry.location } satisfies BootHint));
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

/** Called first thing by main.ts: starts the engine worker and, if hinted, the unlock. */
export function bootEngine(): void {
  try {
    engine();
  } catch {
    return; // reported by app start-up
  }
  const hint = readBootHint();
  if (!hint) return;
  performance.mark('cairn:unlock-start');
  const loc = toEngine(hint.location);
  const info = engine().unlockRemembered(loc, { offline: loc.kind === 's3' && !navigator.onLine });
  info.catch(() => {}); // looked at by adoptEarlyUnlock
  early = { hint, info };
}

/**
 * The unlock bootEngine started, if it was for `entry` (handed out once). One for anything else
 * is waited for and closed first, so it cannot land after, and replace, the right one.
 */
export async function adoptEarlyUnlock(entry: RememberedRepo | undefined): Promise<{ info: Promise<RepoInfo> } | undefined> {
  const e = early;
  early = undefined;
  if (!e) return undefined;
  if (entry && e.hint.id === entry.id && sameLocation(e.hint.location, entry.location)) return { info: e.info };
  if (await e.info.then(() => true, () => false)) await engine().closeRepository();
  return undefined;
}
