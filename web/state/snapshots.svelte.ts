// The snapshot list of the open repository, like `restic snapshots` (oldest first, as restic
// prints it; the view shows newest first). From the engine's offline cache when offline.

import type { SnapshotView } from '../../workers/api';
import { engine } from '../lib/engine';
import { Loadable } from './loadable.svelte';

class SnapshotList {
  readonly #list = new Loadable<SnapshotView[]>();
  /** Showing the list kept from the last visit, which the engine has not confirmed yet. */
  #kept = $state(false);
  #early: Promise<SnapshotView[]> | undefined;
  #onListed: (() => void)[] = [];

  get kept(): boolean {
    return this.#kept;
  }

  get items(): SnapshotView[] {
    return this.#list.value ?? [];
  }
  get loaded(): boolean {
    return this.#list.value !== undefined;
  }
  get loading(): boolean {
    return this.#list.loading;
  }
  get error() {
    return this.#list.error;
  }

  byId(id: string): SnapshotView | undefined {
    return this.items.find((s) => s.id === id || s.shortId === id || s.id.startsWith(id));
  }

  /** Shows the list kept from the last visit while the engine starts (web/lib/boot.ts). */
  showKept(list: SnapshotView[]): void {
    if (this.#list.value !== undefined || this.#list.loading) return; // something real is on show or coming
    this.#list.set(list);
    this.#kept = true;
  }

  /** The first load takes this answer, asked for at start-up (web/lib/boot.ts), instead of asking again. */
  adopt(list: Promise<SnapshotView[]>): void {
    this.#early = list;
  }

  /**
   * Resolves once the engine's list is on show: at once if it is and no newer load is under way,
   * else when a load's answer is. A load superseded by a newer one (another view asked too) does
   * not count, so whatever waits here never runs before the list the user sees.
   */
  whenListed(): Promise<void> {
    if (this.loaded && !this.#kept && !this.#list.loading) return Promise.resolve();
    return new Promise((resolve) => this.#onListed.push(resolve));
  }

  async load(): Promise<void> {
    const early = this.#early;
    this.#early = undefined;
    if (await this.#list.load(() => early ?? engine().listSnapshots(), { keep: true })) {
      this.#kept = false;
      performance.mark('cairn:snapshots-listed');
      for (const f of this.#onListed.splice(0)) f();
      void this.#countSizes();
    }
  }

  /** Snapshots without a summary (restic before 0.17) get their size counted from their trees, after the list shows. */
  async #countSizes(): Promise<void> {
    const list = this.#list.value ?? [];
    const missing = list.filter((s) => s.size === undefined).map((s) => s.id);
    if (missing.length === 0) return;
    try {
      const sizes = await engine().snapshotSizes(missing);
      if (this.#list.value !== list) return; // a newer listing replaced it meanwhile
      this.#list.set(list.map((s) => (s.size === undefined && sizes[s.id] !== undefined ? { ...s, size: sizes[s.id] } : s)));
    } catch {
      // sizes are a nicety: the list stands without them
    }
  }

  clear(): void {
    this.#kept = false;
    this.#early = undefined;
    this.#onListed = []; // a closed repository's waiters never run
    this.#list.clear();
  }
}

export const snapshots = new SnapshotList();
