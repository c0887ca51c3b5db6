// Starting the engine's own workers (file savers, pack decoders, scrypt) from the page.
//
// A worker the engine worker starts itself is a nested worker, and in Firefox 153 those did not
// always start: under automation (WebDriver BiDi, puppeteer), 40 nested workers started and
// terminated one after another hung before the 40th in 9 runs out of 10, some after 1 and some
// after 38, even with the page polled only every 3 or 29 s; the same 40 started by the page went
// through every time, in ~1 s (2026-12-03, a bare page with a worker and a one-line
// module). The engine worker's own scrypt and file-saver workers hung the same way, which kept
// the Firefox test out of `npm test`.
//
// So when the page offers (workers/client/worker-host.ts), the engine asks it to start each
// worker, with one end of a MessageChannel that the engine and that worker then talk over
// directly; the page keeps only the Worker object, to terminate it and report its errors.
// Without a host (a page that does not offer one) the engine starts its workers itself.

/** What the engine sends the page over the host port. */
export type ToHost = { type: 'spawn'; id: number; url: string; name: string; port: MessagePort } | { type: 'terminate'; id: number };
/** What the page sends back: a worker's error event (a script that failed to load, an exception). */
export type FromHost = { type: 'error'; id: number; message: string };

/** The first message a worker started by the page gets: the port it talks to the engine over. */
export const HOST_PORT = 'cairnHostPort';
/** The message the engine worker takes its host port from (before comlink sees it). */
export const WORKER_HOST = 'cairnWorkerHost';

/** The part of a Worker the engine's pools use. */
export interface SpawnedWorker {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((ev: MessageEvent) => void) | null;
  onerror: ((ev: { message: string; preventDefault(): void }) => void) | null;
  onmessageerror: (() => void) | null;
  terminate(): void;
}

let host: MessagePort | undefined;
let nextId = 1;
const hosted = new Map<number, SpawnedWorker>();

/** Makes `port` (from the page) the place this engine starts its workers. */
export function useWorkerHost(port: MessagePort): void {
  host = port;
  port.onmessage = (ev: MessageEvent<FromHost>) => {
    if (ev.data?.type === 'error') hosted.get(ev.data.id)?.onerror?.({ message: ev.data.message, preventDefault() {} });
  };
}

/** Starts a module worker from `url`: through the page if it hosts them, else here. */
export function spawnWorker(url: string, name: string): SpawnedWorker {
  if (!host) return new Worker(url, { type: 'module', name }) as unknown as SpawnedWorker;
  const to = host;
  const id = nextId++;
  const channel = new MessageChannel();
  const w: SpawnedWorker = {
    postMessage: (m, transfer = []) => channel.port1.postMessage(m, transfer),
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    terminate() {
      if (!hosted.delete(id)) return;
      channel.port1.close();
      to.postMessage({ type: 'terminate', id } satisfies ToHost);
    },
  };
  channel.port1.onmessage = (ev) => w.onmessage?.(ev);
  channel.port1.onmessageerror = () => w.onmessageerror?.();
  hosted.set(id, w);
  to.postMessage({ type: 'spawn', id, url: new URL(url, self.location.href).href, name, port: channel.port2 } satisfies ToHost, [channel.port2]);
  return w;
}
