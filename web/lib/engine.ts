// The page's handle on the engine worker: one module worker (workers/engine.worker.ts) wrapped
// with comlink and typed by workers/api.ts, started early so WASM setup overlaps with the
// user typing a password. Everything heavy (reading files, hashing, encrypting, restoring)
// happens behind this; the page only sends requests and receives small views.

import * as Comlink from 'comlink';
import type { EngineApi, ProgressSnapshot } from '../../workers/api';
import { appError } from './messages';

let remote: Comlink.Remote<EngineApi> | undefined;
let failed: unknown;

export function engine(): Comlink.Remote<EngineApi> {
  if (failed) throw failed;
  if (!remote) {
    let worker: Worker;
    try {
      worker = new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module', name: 'cairn-engine' });
    } catch (e) {
      failed = appError('WORKER_FAILED', e instanceof Error ? e.message : String(e));
      throw failed;
    }
    worker.addEventListener('error', (ev) => {
      // A worker that fails to load (bad script, blocked by CSP) never answers; remember why.
      failed = appError('WORKER_FAILED', ev.message || 'the engine worker failed to load');
    });
    remote = Comlink.wrap<EngineApi>(worker);
  }
  return remote;
}

/** Wraps a progress listener so it can be called from the worker. */
export function progressListener(fn: (p: ProgressSnapshot) => void): ((p: ProgressSnapshot) => void) & Comlink.ProxyMarked {
  return Comlink.proxy(fn);
}
