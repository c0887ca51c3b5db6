// The open repository's numbers for the overview: what it stores (from the engine's index),
// and the series the charts draw — its size after each snapshot and the data each one added.
// Everything comes from the engine's cache when offline.

import type { RepoStats } from '../../workers/api';
import { sizeOverTime, type Point } from '../lib/chart';
import { engine } from '../lib/engine';
import { Loadable } from './loadable.svelte';
import { snapshots } from './snapshots.svelte';

class Dashboard {
  readonly #stats = new Loadable<RepoStats>();

  get stats(): RepoStats | undefined {
    return this.#stats.value;
  }
  get error() {
    return this.#stats.error;
  }

  async load(): Promise<void> {
    await this.#stats.load(() => engine().repositoryStats(), { keep: true });
  }

  clear(): void {
    this.#stats.clear();
  }

  /** Data added per snapshot (stored bytes: restic's data_added_packed), oldest first. */
  get added(): Point[] {
    return snapshots.items.filter((s) => s.summary).map((s) => ({ t: Date.parse(s.time), v: s.summary!.dataAddedPacked }));
  }

  /** The repository's size after each snapshot, counted back from its size now. */
  get size(): Point[] {
    const stored = this.stats?.storedBytes;
    if (stored === undefined) return [];
    return sizeOverTime(
      snapshots.items.map((s) => ({ t: Date.parse(s.time), added: s.summary?.dataAddedPacked })),
      stored,
    );
  }
}

export const dashboard = new Dashboard();
