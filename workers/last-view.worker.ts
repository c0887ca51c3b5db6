// A worker small enough to start in a few milliseconds: opens the last listing kept for a
// stay-unlocked repository (./cache/last-view.ts) so the page can show it while the engine
// worker is still loading. Answers one question, then closes.

import { recallView, type LastView } from './cache/last-view';

export interface LastViewQuestion {
  locationKey: string;
  id: string;
  path: string[];
}

self.onmessage = async (e: MessageEvent<LastViewQuestion>) => {
  let view: LastView | undefined;
  try {
    view = await recallView(e.data.locationKey, e.data);
  } catch {
    view = undefined; // no database, no record: the page just waits for the engine
  }
  self.postMessage(view ?? null);
  self.close();
};
