// Page side of ../spawn.ts: starts the workers the engine asks for (file savers, pack
// decoders, scrypt), hands each the port the engine talks to it over, and terminates them
// when asked or when the engine goes. Nested workers hang in Firefox; see ../spawn.ts.

import { HOST_PORT, WORKER_HOST, type FromHost, type ToHost } from '../spawn';

/** Offers `engine` (the engine worker) to start its workers here; returns a stop that terminates them all. */
export function hostWorkers(engine: Worker): () => void {
  const channel = new MessageChannel();
  const workers = new Map<number, Worker>();
  const port = channel.port1;
  port.onmessage = (ev: MessageEvent<ToHost>) => {
    const m = ev.data;
    if (m.type === 'terminate') {
      workers.get(m.id)?.terminate();
      workers.delete(m.id);
      return;
    }
    if (m.type !== 'spawn') return;
    let w: Worker;
    try {
      w = new Worker(m.url, { type: 'module', name: m.name });
    } catch (e) {
      port.postMessage({ type: 'error', id: m.id, message: (e as Error)?.message ?? String(e) } satisfies FromHost);
      return;
    }
    workers.set(m.id, w);
    w.onerror = (e) => {
      e.preventDefault();
      port.postMessage({ type: 'error', id: m.id, message: e.message || 'script error' } satisfies FromHost);
    };
    w.postMessage({ [HOST_PORT]: m.port }, [m.port]);
  };
  engine.postMessage({ [WORKER_HOST]: channel.port2 }, [channel.port2]);
  return () => {
    for (const w of workers.values()) w.terminate();
    workers.clear();
    port.close();
  };
}
