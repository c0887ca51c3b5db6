// Page side of the last-view worker (../last-view.worker.ts): asks it once for the listing kept
// for a stay-unlocked repository's folder. Resolves undefined when there is none or the worker
// fails; never rejects (the engine's own answer follows anyway).

import type { LastView } from '../cache/last-view';
import type { RepoLocation } from '../api';
import { locationKey } from '../location-key';
import type { LastViewQuestion } from '../last-view.worker';

export type { LastView };

export function recallLastView(loc: RepoLocation, id: string, path: string[]): Promise<LastView | undefined> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL('../last-view.worker.ts', import.meta.url), { type: 'module', name: 'cairn-last-view' });
    } catch {
      resolve(undefined);
      return;
    }
    const done = (v: LastView | undefined) => {
      worker.terminate();
      resolve(v);
    };
    worker.onmessage = (e: MessageEvent<LastView | null>) => done(e.data ?? undefined);
    worker.onerror = () => done(undefined);
    worker.postMessage({ locationKey: locationKey(loc), id, path } satisfies LastViewQuestion);
  });
}
