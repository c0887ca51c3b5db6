// One folder of one snapshot, the view of "open a snapshot and walk its tree". Tree blobs come
// from the engine's cache when warm, so this is the fast path measured by the
// `cairn:snapshot-open` performance measure.

import type { NodeView, SnapshotView } from '../../workers/api';
import type { LastView } from '../../workers/client/last-view';
import { engine } from '../lib/engine';
import { Loadable } from './loadable.svelte';

class SnapshotTree {
  readonly #entries = new Loadable<NodeView[]>();
  #snapshotId = $state('');
  #path = $state.raw<string[]>([]);
  /** The snapshot of a kept listing shown before the engine confirmed it (see showKept). */
  #kept = $state.raw<SnapshotView | undefined>();

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

  /** Showing a kept listing the engine has not confirmed yet: its snapshot. */
  get kept(): SnapshotView | undefined {
    return this.#kept;
  }

  /** Shows the listing kept from the last visit while the engine starts (web/lib/boot.ts). */
  showKept(v: LastView): void {
    if (this.#snapshotId) return; // something real is already on show
    this.#snapshotId = v.snapshot.id;
    this.#path = v.path;
    this.#kept = v.snapshot;
    this.#entries.set(v.entries);
  }

  /** Lists `path` of snapshot `id` (skipped when it is already shown and confirmed). */
  async open(id: string, path: string[]): Promise<void> {
    const same = id === this.#snapshotId && path.join('/') === this.#path.join('/');
    if (same && !this.#kept && (this.loaded || this.loading)) return;
    const confirming = same && this.#kept !== undefined;
    if (!same) this.#kept = undefined;
    this.#snapshotId = id;
    this.#path = path;
    performance.mark('cairn:snapshot-open-start');
    // A kept listing stays on screen until the fresh one replaces it (or an error does).
    const ok = await this.#entries.load(() => engine().listDir(id, path), { keep: confirming });
    if (confirming && this.#kept) {
      this.#kept = undefined;
      if (!ok && this.#entries.error) this.#entries.dropValue();
    }
  }

  /** Keeps the listing on show (sealed, engine side) as the next start's first picture. */
  rememberShown(): void {
    const [id, path] = [this.#snapshotId, [...this.#path]];
    void engine()
      .rememberView(id, path)
      .then(
        (done) => done && performance.mark('cairn:listing-kept'),
        () => {},
      );
  }

  clear(): void {
    this.#snapshotId = '';
    this.#path = [];
    this.#kept = undefined;
    this.#entries.clear();
  }
}

export const tree = new SnapshotTree();
