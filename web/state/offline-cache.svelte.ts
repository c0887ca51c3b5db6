// The background fill of a bucket repository's offline cache (EngineApi.prepareOffline): started
// once the snapshot list has been shown, never waited for by anything the page shows, resumed
// by the engine after a reload where the last fill stopped. This holds its progress for
// OfflineCacheStatus.svelte.

import * as Comlink from 'comlink';
import type { OfflineCacheProgress, RepoInfo } from '../../workers/api';
import { engine } from '../lib/engine';
import { describeError, type Described } from '../lib/messages';

class OfflineCache {
  #progress = $state.raw<OfflineCacheProgress | undefined>();
  #error = $state.raw<Described | undefined>();
  #repo: string | undefined;

  get progress(): OfflineCacheProgress | undefined {
    return this.#progress;
  }
  get error(): Described | undefined {
    return this.#error;
  }

  /** Starts the fill for the open repository `info` (bucket repositories online only; once per open). */
  async start(info: RepoInfo): Promise<void> {
    if (!info.location.startsWith('s3:') || info.offline || this.#repo === info.id) return;
    this.#repo = info.id;
    this.#error = undefined;
    const repo = info.id;
    const onProgress = Comlink.proxy(async (p: OfflineCacheProgress) => {
      if (this.#repo !== repo) return;
      if (p.phase !== 'done' && !this.#progress) performance.mark('cairn:offline-cache-started');
      this.#progress = p;
      // e2e builds: a test may hold the fill at a step (the engine awaits this listener).
      if (__CAIRN_TEST_HOOKS__ && window.__cairnTestOfflineFillGate) await window.__cairnTestOfflineFillGate(p);
    });
    try {
      await engine().prepareOffline(onProgress);
      if (this.#repo !== repo) return;
      this.#progress = { ...(this.#progress ?? { indexFiles: 0, indexTotal: 0, snapshots: 0, snapshotsDone: 0, folders: 0 }), phase: 'done' };
      performance.mark('cairn:offline-cache-done');
    } catch (e) {
      if (this.#repo === repo) this.#error = describeError(e);
    }
  }

  clear(): void {
    this.#repo = undefined;
    this.#progress = undefined;
    this.#error = undefined;
  }
}

export const offlineCache = new OfflineCache();
