// Small, read-only looks into the browser's own storage (OPFS) from the page: whether the
// default repository exists yet (so the first screen offers "Create" instead of "Open") and
// how much room the browser gives this site. The engine owns everything inside the folders.

/** workers/api.ts: OPFS repositories live in navigator.storage.getDirectory()/cairn-repos/<name>. */
const REPOS_DIR = 'cairn-repos';

/**
 * Whether this browser has an origin-private file system, decided once per page load: Chromium,
 * Firefox and Safari do; WebKitGTK (GNOME Web) and some embedded engines do not, and there a
 * repository "in this browser" cannot be made, so it is not offered.
 */
export const hasOpfs: boolean = typeof navigator !== 'undefined' && typeof navigator.storage?.getDirectory === 'function';

export async function opfsRepoExists(name: string): Promise<boolean> {
  if (!hasOpfs) return false;
  try {
    const root = await navigator.storage.getDirectory();
    const repos = await root.getDirectoryHandle(REPOS_DIR);
    const dir = await repos.getDirectoryHandle(name);
    await dir.getFileHandle('config');
    return true;
  } catch {
    return false;
  }
}

export interface StorageRoom {
  usage: number;
  quota: number;
  persisted: boolean;
}

export async function storageRoom(): Promise<StorageRoom | undefined> {
  if (!navigator.storage?.estimate) return undefined;
  const { usage = 0, quota = 0 } = await navigator.storage.estimate();
  const persisted = (await navigator.storage.persisted?.()) ?? false;
  return { usage, quota, persisted };
}

/**
 * Asks the browser not to evict this site's storage under pressure (a backup in OPFS must not
 * vanish). Chromium grants it silently to installed or engaged sites; Firefox asks the user.
 */
export async function askPersistence(): Promise<boolean> {
  try {
    return (await navigator.storage.persist?.()) ?? false;
  } catch {
    return false;
  }
}
