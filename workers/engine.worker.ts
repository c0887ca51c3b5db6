// The engine worker's entry: only loads its body (./engine-main.ts) and holds the page's first
// messages until that body listens. The body is a module of its own, not this script, because
// WebKit (WebKitGTK 2.50, measured) evaluates a worker's top-level module script a second time
// when a chunk the worker imports later imports it back: the lazily loaded backup and restore
// code (./engine/heavy.ts) shares modules with the body, which the bundler leaves in the body's
// chunk. Had the body been this script, that second copy would answer the page too, with no
// repository open ("No repository open" a second after unlocking, in WebKit only). A dynamic
// import of the body is one module-map entry in every engine.

/// <reference lib="webworker" />
const early: MessageEvent[] = [];
const hold = (ev: MessageEvent) => {
  early.push(ev);
  ev.stopImmediatePropagation();
};
self.addEventListener('message', hold);

void import('./engine-main').then(
  () => {
    self.removeEventListener('message', hold);
    for (const ev of early.splice(0)) self.dispatchEvent(new MessageEvent('message', { data: ev.data, ports: [...ev.ports] }));
  },
  (e: unknown) => {
    // Surfaces as the worker's error event on the page (WORKER_FAILED).
    setTimeout(() => {
      throw e;
    });
  },
);

export type { EngineWorkerApi } from './engine-main';
