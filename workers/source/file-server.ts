// The Files of an `<input webkitdirectory>`, handed straight from the page to the file-saver
// workers that read them, and only those a backup reads.
//
// The page used to post every File to the engine, which held them all and posted each again
// to a saver. Now the engine gets only the paths, sizes and times (plain arrays, cheap to
// clone): a backup that finds every file unchanged posts no File at all, and each saver asks
// the page for the Files of the jobs queued to it, many per message, over a MessagePort of
// its own. (In Chromium, what made posting 50 000 Files cost 10.3 s was reading each one's
// size and date, which serialising a File does too; see servedFileList.)
//
// The wiring: the page serves the Files on a port (serveFiles) and hands that port to the
// engine with the backup request. The engine, for each saver it starts, opens a channel and
// passes one end to the page over that port and the other to the saver (connectFileServer);
// the saver asks over its end (fileClient). Files are asked for by their index in the list.

import { CairnError } from '../../core/errors';
import { macrotask } from '../../core/util/concurrency';
import type { BackupSource } from '../api';

/** A file of the page's list, by its index there: what a served list's entries hold as their ref. */
export interface ServedFileRef {
  served: number;
}

export function isServedRef(ref: unknown): ref is ServedFileRef {
  return typeof ref === 'object' && ref !== null && typeof (ref as ServedFileRef).served === 'number';
}

type ToServer = { type: 'connect'; port: MessagePort };
interface FileRequest {
  req: number;
  indices: number[];
}
interface FileReply {
  req: number;
  files: (File | null)[];
}

/** Page side: serves `files` until close(). Hand `port` to the engine (transfer it). */
export function serveFiles(files: readonly File[]): { port: MessagePort; close(): void } {
  const channel = new MessageChannel();
  const clients: MessagePort[] = [];
  channel.port1.onmessage = (e: MessageEvent<ToServer>) => {
    if (e.data?.type !== 'connect') return;
    const client = e.data.port;
    clients.push(client);
    client.onmessage = (m: MessageEvent<FileRequest>) => {
      const { req, indices } = m.data;
      client.postMessage({ req, files: indices.map((i) => files[i] ?? null) } satisfies FileReply);
    };
  };
  return {
    port: channel.port2,
    close() {
      channel.port1.close();
      for (const c of clients) c.close();
    },
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

/**
 * Page side, for a backup of a webkitdirectory list: the request's source (transfer its
 * `server`) and close() for when the backup is over.
 *
 * Chromium learns a listed File's size and time only when first asked, with a synchronous
 * request to the browser process: ~0.2 ms a file, 10.3 s for D2's 50 000 on this thread
 * (posting the Files to a worker costs the same: it asks too). They are read here a slice at
 * a time, letting the page draw and answer between slices, instead of in one 10 s freeze.
 */
export async function servedFileList(
  files: readonly File[],
  relativePaths: readonly string[],
  signal?: AbortSignal,
  onProgress?: (done: number, total: number) => void,
): Promise<{ source: BackupSource & { kind: 'served-files' }; close(): void }> {
  const sizes = new Array<number>(files.length);
  const lastModified = new Array<number>(files.length);
  let slice = performance.now();
  for (let i = 0; i < files.length; i++) {
    sizes[i] = files[i]!.size;
    lastModified[i] = files[i]!.lastModified;
    if (performance.now() - slice > 40) {
      onProgress?.(i + 1, files.length);
      await new Promise((r) => setTimeout(r, 0));
      if (signal?.aborted) throw new CairnError('ABORTED', 'operation cancelled');
      slice = performance.now();
    }
  }
  onProgress?.(files.length, files.length);
  const { port, close } = serveFiles(files);
  return { source: { kind: 'served-files', relativePaths: [...relativePaths], sizes, lastModified, server: port }, close };
}
