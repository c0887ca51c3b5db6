// Where the last check of each repository is kept on this device: the page's own database
// (./db.ts), under the repository's config ID, as a preference (no schema change). Kept: counts,
// pack IDs and at most 50 damaged file paths — no secrets, no contents.

import { getPref, setPref } from './db';
import type { CheckState } from './health';

const key = (repoId: string) => `check:${repoId}`;

export async function loadCheckState(repoId: string): Promise<CheckState | undefined> {
  return getPref<CheckState>(key(repoId));
}

export async function saveCheckState(repoId: string, state: CheckState): Promise<void> {
  await setPref(key(repoId), state);
}
