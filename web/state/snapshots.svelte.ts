// The snapshot list of the open repository, like `restic snapshots` (oldest first, as restic
// prints it; the view shows newest first). From the engine's offline cache when offline.

import type { SnapshotView } from '../../workers/api';
import { engine } from '../lib/engine';
import { Loadable } from './loadable.svelte';

class SnapshotList {
  readonly #list = new Loadable<SnapshotView[]>();

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

  async load(): Promise<void> {
    if (await this.#list.load(() => engine().listSnapshots(), { keep: true })) {
      performance.mark('cairn:snapshots-listed');
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
    this.#list.clear();
  }
}

export const snapshots = new SnapshotList();
