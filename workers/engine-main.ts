// The engine worker's body, loaded by its entry (./engine.worker.ts): exposes one Engine
// (./engine/engine.ts) to the page, every method rejecting with a plain EngineError.

/// <reference lib="webworker" />
import * as Comlink from 'comlink';
import { guardedMethods } from './errors';
import { Engine, TunableEngine } from './engine/engine';
import { useWorkerHost, WORKER_HOST } from './spawn';
import { warmUp } from './warmup';

/**
 * True in the builds for the engine harness and the benchmarks (vite define); false in the
 * app's, whose engine answers no `tune` call.
 */
declare const __CAIRN_TUNING__: boolean | undefined;
const tunable = typeof __CAIRN_TUNING__ !== 'undefined' && __CAIRN_TUNING__;

// The page's offer to start this engine's workers (./spawn.ts), its first message if it makes
// one; comlink never sees it.
self.addEventListener('message', (ev: MessageEvent) => {
  const port = (ev.data as Record<string, unknown> | null)?.[WORKER_HOST];
  if (!(port instanceof MessagePort)) return;
  ev.stopImmediatePropagation();
  useWorkerHost(port);
});

warmUp();

Comlink.expose(guardedMethods(tunable ? new TunableEngine() : new Engine()));

export type EngineWorkerApi = Engine;
