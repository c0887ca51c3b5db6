// The page's handle on the engine worker (workers/client/engine.ts starts it and wraps it with
// comlink, typed by workers/api.ts), started early so WASM setup overlaps with the user typing
// a password. Everything heavy (reading files, hashing, encrypting, restoring) happens behind
// this; the page only sends requests and receives small views.

import * as Comlink from 'comlink';
import type { EngineApi, ProgressSnapshot } from '../../workers/api';
import { createEngine } from '../../workers/client/engine';
import { appError } from './messages';

let remote: Comlink.Remote<EngineApi> | undefined;
let failed: unknown;

export function engine(): Comlink.Remote<EngineApi> {
  if (failed) throw failed;
  if (!remote) {
    try {
      remote = createEngine().engine;
    } catch (e) {
      failed = appError('WORKER_FAILED', e instanceof Error ? e.message : String(e));
      throw failed;
    }
  }
  return remote;
}

/** Wraps a progress listener so it can be called from the worker. */
export function progressListener(fn: (p: ProgressSnapshot) => void): ((p: ProgressSnapshot) => void) & Comlink.ProxyMarked {
  return Comlink.proxy(fn);
}
