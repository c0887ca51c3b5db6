// The Files of an `<input webkitdirectory>`, handed straight from the page to the file-saver
// workers that read them, and only those a backup reads.
//
// No File crosses to the engine: it gets only the paths, sizes and times (plain arrays, cheap
// to clone), so a backup that finds every file unchanged posts no File at all, and each saver
// asks the page for the Files of the jobs queued to it, many per message, over a MessagePort
// of its own. (In Chromium, posting 50 000 Files through the engine cost 10.3 s, nearly all
// of it reading each one's size and date, which serialising a File does too; see servedFileList.)
//
// Sizes and times travel the same way, while the backup runs: Chromium learns each listed
// File's only with a synchronous request to the browser process per file: seconds for a
// folder of thousands of files, too long for a backup to wait for with its savers idle. So the engine
// builds the folder from the paths alone, tells the page in which order it will walk
// the files (requestMetadata), and the page reads their sizes and times in that order, a slice
// at a time, while the first directories are already being saved.
//
// A File the page has served is dropped there. Each File whose size the page has read holds
// memory in the renderer and in the browser process, on top of what the pick itself costs,
// until it is collected; for a large folder that is hundreds of MiB (bench/README.md). So a
// served list is used up by its backup: the page must pick the folder again for another.
//
// The wiring: the page serves the Files on a port (serveFiles) and hands that port to the
// engine with the backup request. The engine, for each saver it starts, opens a channel and
// passes one end to the page over that port and the other to the saver (connectFileServer);
// the saver asks over its end (fileClient). Files are asked for by their index in the list.

import { abortError, CairnError } from '../../core/errors';
import { macrotask } from '../../core/concurrency/concurrency';
import type { ListMetadata } from './file-list-source';
import { isServedRef, type FileReply, type FileRequest, type FromServer, type ServedFileRef, type ToServer } from './file-protocol';

export { isServedRef, type ServedFileRef };

/**
 * Engine side: the sizes and times of the page's list, asked for over its server port in the
 * order start() is given, arriving while the backup runs. Call once per server port.
 */
export function requestMetadata(server: MessagePort, count: number): ListMetadata {
  const sizes = new Float64Array(count);
  const lastModified = new Float64Array(count);
  let order: Uint32Array = new Uint32Array(0);
  let known = 0;
  let failed: CairnError | undefined;
  const waiting = new Set<{ pos: number; resolve: () => void; reject: (e: unknown) => void }>();
  const settle = () => {
    for (const w of waiting) {
      if (failed) w.reject(failed);
      else if (w.pos < known) w.resolve();
      else continue;
      waiting.delete(w);
    }
  };
  server.onmessage = (e: MessageEvent<FromServer>) => {
    const m = e.data;
    if (m?.type === 'metadataFailed') failed = new CairnError(m.code, m.message);
    else if (m?.type === 'metadata') {
      m.sizes.forEach((size, j) => {
        const i = order[m.from + j]!;
        sizes[i] = size;
        lastModified[i] = m.lastModified[j]!;
      });
      known = Math.max(known, m.from + m.sizes.length);
    } else return;
    settle();
  };
  return {
    start(o) {
      order = o;
      server.postMessage({ type: 'metadata', order: o } satisfies ToServer);
    },
    until(pos, signal) {
      if (pos < known) return Promise.resolve();
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(abortError(signal));
        const abort = () => {
          waiting.delete(w);
          reject(abortError(signal));
        };
        const detach = () => signal?.removeEventListener('abort', abort);
        const w = { pos, resolve: () => (detach(), resolve()), reject: (e: unknown) => (detach(), reject(e)) };
        signal?.addEventListener('abort', abort, { once: true });
        waiting.add(w);
      });
    },
    size: (i) => sizes[i]!,
    lastModified: (i) => lastModified[i]!,
  };
}

/** Engine side: a new port to the page's server for one saver (transfer it to the saver). */
export function connectFileServer(server: MessagePort): MessagePort {
  const channel = new MessageChannel();
  server.postMessage({ type: 'connect', port: channel.port1 } satisfies ToServer, [channel.port1]);
  return channel.port2;
}

export interface FileClient {
  /** The File at `index` of the page's list (asked for now, unless fetched ahead). */
  get(index: number): Promise<File>;
  /** Asks for these now, ahead of their get(): jobs queued in a saver, so none waits on the page. */
  fetchAhead(indices: number[]): void;
}

/**
 * Saver side: asks the page for Files by index. The asks of one task go out as one message,
 * so the small files a saver starts together arrive (and are read) together.
 */
export function fileClient(port: MessagePort): FileClient {
  type Ask = { resolve: (f: File) => void; reject: (e: unknown) => void; index: number };
  let next = 0;
  const waiting = new Map<number, Ask[]>();
  let asks: Ask[] = [];
  const ahead = new Map<number, Promise<File>>();
  port.onmessage = (e: MessageEvent<FileReply>) => {
    const { req, files } = e.data;
    const list = waiting.get(req);
    waiting.delete(req);
    list?.forEach((a, i) => {
      const f = files[i];
      if (f) a.resolve(f);
      else a.reject(new CairnError('SOURCE_READ', `file #${a.index} is not in the picked list`, { detail: { index: a.index } }));
    });
  };
  const send = () => {
    const list = asks;
    asks = [];
    const req = next++;
    waiting.set(req, list);
    port.postMessage({ req, indices: list.map((a) => a.index) } satisfies FileRequest);
  };
  const ask = (index: number) =>
    new Promise<File>((resolve, reject) => {
      if (asks.push({ resolve, reject, index }) === 1) macrotask(send);
    });
  return {
    get(index) {
      const f = ahead.get(index);
      ahead.delete(index);
      return f ?? ask(index);
    },
    fetchAhead(indices) {
      for (const i of indices) {
        if (ahead.has(i)) continue;
        const f = ask(i);
        f.catch(() => {}); // seen by the get() that takes it
        ahead.set(i, f);
      }
    },
  };
}
