// Each repository's last check, as this device remembers it (../lib/check-store.ts), and the
// health it stands for. Readable by any view: `checkResults.latest(repoId)` for the record,
// `checkResults.health(repoId)` for the one-line summary ("Healthy, checked 3 days ago, 10 % of
// the data read"), once `load(repoId)` has read it.

import { loadCheckState, saveCheckState } from '../lib/check-store';
import { afterCheck, healthSummary, nextGroup, type CheckRecord, type CheckState, type Health } from '../lib/health';
import type { CheckShare } from '../../workers/api';

class CheckResults {
  #byRepo = $state.raw<Record<string, CheckState>>({});

  latest(repoId: string | undefined): CheckRecord | undefined {
    return repoId ? this.#byRepo[repoId]?.last : undefined;
  }

  health(repoId: string | undefined, now = Date.now()): Health {
    return healthSummary(this.latest(repoId), now);
  }

  /** The next of restic's groups of t to read for this repository (1/t, 2/t, … in turn). */
  nextShare(repoId: string | undefined, t: number): CheckShare {
    return nextGroup(repoId ? this.#byRepo[repoId] : undefined, t);
  }

  async load(repoId: string | undefined): Promise<void> {
    if (!repoId) return;
    const state = await loadCheckState(repoId).catch(() => undefined);
    if (state) this.#byRepo = { ...this.#byRepo, [repoId]: state };
  }

  async record(record: CheckRecord): Promise<void> {
    const state = afterCheck(this.#byRepo[record.repoId], record);
    this.#byRepo = { ...this.#byRepo, [record.repoId]: state };
    await saveCheckState(record.repoId, state).catch((e) => console.warn('check result not kept:', e));
  }
}

export const checkResults = new CheckResults();
