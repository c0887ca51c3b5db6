// One folder of one snapshot, the view of "open a snapshot and walk its tree". Tree blobs come
// from the engine's cache when warm, so this is the fast path measured by the
// `cairn:snapshot-open` performance measure.

import type { NodeView } from '../../workers/api';
import { engine } from '../lib/engine';
import { Loadable } from './loadable.svelte';

class SnapshotTree {
  readonly #entries = new Loadable<NodeView[]>();
  #snapshotId = $state('');
  #path = $state.raw<string[]>([]);

  get snapshotId(): string {
    return this.#snapshotId;
  }
  get path(): string[] {
    return this.#path;
  }
  get entries(): NodeView[] {
    return this.#entries.value ?? [];
  }
  get loaded(): boolean {
    return this.#entries.value !== undefined;
  }
  get loading(): boolean {
    return this.#entries.loading;
  }
  get error() {
    return this.#entries.error;
  }

  /** Lists `path` of snapshot `id` (skipped when it is already shown). */
  async open(id: string, path: string[]): Promise<void> {
    if (id === this.#snapshotId && path.join('/') === this.#path.join('/') && (this.loaded || this.loading)) return;
    this.#snapshotId = id;
    this.#path = path;
    performance.mark('cairn:snapshot-open-start');
    await this.#entries.load(() => engine().listDir(id, path));
  }

  clear(): void {
    this.#snapshotId = '';
    this.#path = [];
    this.#entries.clear();
  }
}

export const tree = new SnapshotTree();
