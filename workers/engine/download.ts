// Streamed downloads. The engine prepares a producer and a MessageChannel; the page hands one
// port to the service worker (workers/client/download.ts), which answers the download URL with
// a ReadableStream that pulls chunks through it. Nothing is buffered beyond a few MiB: each
// pull takes one chunk from a ByteQueue the producer fills under backpressure.
//
// Port protocol (sw/download-route.ts is the other side):
//   SW → engine  { type: 'pull' } | { type: 'cancel' }
//   engine → SW  { type: 'chunks', list } | { type: 'end' } | { type: 'error', message }
// Each pull is answered with everything queued (up to 8 MiB), so a fast producer is not held
// to one piece per round trip.

import { serializeError } from '../../core/errors';
import type { ProgressSnapshot } from '../../core/progress';
import type { DownloadTicket, RestoreResultView } from '../api';
import type { Producer } from './restore';
import { ByteQueue } from './streams';

const DOWNLOAD_PATH = '__cairn/download/';

interface Running {
  result: Promise<RestoreResultView>;
  abort: AbortController;
}

const running = new Map<string, Running>();

export type PortMessage = { type: 'pull' } | { type: 'cancel' };
export type EngineChunk = { type: 'chunks'; list: Uint8Array[] } | { type: 'end' } | { type: 'error'; message: string };

export function startDownload(p: Producer, parent: AbortSignal, onProgress?: (p: ProgressSnapshot) => void): DownloadTicket {
  const id = crypto.randomUUID();
  const channel = new MessageChannel();
  const port = channel.port1;
  const queue = new ByteQueue();
  const abort = new AbortController();
  const onParentAbort = () => abort.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });

  let started = false;
  let settle!: { resolve: (r: RestoreResultView) => void; reject: (e: unknown) => void };
  const result = new Promise<RestoreResultView>((resolve, reject) => (settle = { resolve, reject }));
  result.catch(() => {});
  const begin = () => {
    started = true;
    p.run((chunk) => queue.push(chunk), abort.signal, onProgress)
      .then(
        (r) => {
          queue.end();
          settle.resolve(r);
        },
        (e) => {
          queue.end(e);
          settle.reject(e);
        },
      )
      .finally(() => {
        parent.removeEventListener('abort', onParentAbort);
        setTimeout(() => running.delete(id), 60_000); // downloadResult may come a little later
      });
  };

  port.onmessage = (ev: MessageEvent<PortMessage>) => {
    if (ev.data.type === 'cancel') {
      abort.abort();
      queue.cancel();
      if (!started) settle.reject(serializeError(new Error('download cancelled')));
      port.close();
      return;
    }
    if (!started) begin();
    queue.take().then(
      (list) => {
        if (list.length > 0) port.postMessage({ type: 'chunks', list } satisfies EngineChunk, [...new Set(list.map((b) => b.buffer as ArrayBuffer))]);
        else {
          port.postMessage({ type: 'end' } satisfies EngineChunk);
          port.close();
        }
      },
      (e) => {
        port.postMessage({ type: 'error', message: serializeError(e).message } satisfies EngineChunk);
        port.close();
      },
    );
  };
  running.set(id, { result, abort });
  return { id, url: `${DOWNLOAD_PATH}${id}/${encodeURIComponent(p.filename)}`, filename: p.filename, size: p.size, port: channel.port2 };
}

export function downloadResult(id: string): Promise<RestoreResultView> {
  const r = running.get(id);
  if (!r) return Promise.reject(new Error(`no download ${id}`));
  return r.result;
}
