// Page side: starts the engine worker and wraps it with comlink. The page imports this and the
// types in ../api.ts — never the worker's code itself.

import * as Comlink from 'comlink';
import type { EngineApi } from '../api';
import { hostWorkers } from './worker-host';

export interface EngineHandle {
  engine: Comlink.Remote<EngineApi>;
  terminate(): void;
}

export function createEngine(): EngineHandle {
  const worker = new Worker(new URL('../engine.worker.ts', import.meta.url), { type: 'module', name: 'cairn-engine' });
  const stopHosting = hostWorkers(worker);
  const engine = Comlink.wrap<EngineApi>(worker);
  return {
    engine,
    terminate: () => {
      engine[Comlink.releaseProxy]();
      worker.terminate();
      stopHosting();
    },
  };
}
