// The worker side of ./spawn.ts: a worker the page started for the engine gets, as its first
// message, the port it talks to the engine over; a worker the engine started itself talks over
// its own scope. Either way the worker's code sees one channel.

import { HOST_PORT } from './spawn';

export interface WorkerChannel {
  post(message: unknown, transfer?: Transferable[]): void;
}

/** Listens for the engine's messages and returns how to answer it. */
export function engineChannel<T>(onMessage: (ev: MessageEvent<T>) => void): WorkerChannel {
  const scope = self as unknown as DedicatedWorkerGlobalScope;
  let port: MessagePort | undefined;
  scope.onmessage = (ev: MessageEvent) => {
    const gift = (ev.data as Record<string, unknown> | null)?.[HOST_PORT];
    if (gift instanceof MessagePort) {
      port = gift;
      port.onmessage = onMessage;
      return;
    }
    onMessage(ev as MessageEvent<T>);
  };
  return { post: (m, transfer = []) => (port ?? scope).postMessage(m, transfer) };
}
