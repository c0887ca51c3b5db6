// Page side of serving picked Files to the engine's savers (the design is explained at the
// top of ../source/file-server.ts): the page keeps the Files, answers the engine's requests
// for their sizes and times, and hands each saver the Files it asks for, dropping them here.

import { abortError, CairnError } from '../../core/errors';
import { macrotask } from '../../core/concurrency/concurrency';
import { collectSoon } from '../../core/memory/garbage';
import type { BackupSource } from '../api';
import { filesMade } from '../source/file-garbage';
import type { FileReply, FileRequest, FromServer, ToServer } from '../source/file-protocol';

/**
 * How long the page reads sizes and times before it posts them and lets other tasks run. The
 * walk hands files to the savers as their directories' slices arrive: slices too short make
 * savers read small files in smaller batches, and the browser process spend more per file.
 */
const METADATA_SLICE_MS = 40;

export interface ServeOptions {
  signal?: AbortSignal;
  /** How many files' sizes and times the page has read, of how many. */
  onMetadata?: (done: number, total: number) => void;
}

/**
 * Page side: serves `files` until close(). Hand `port` to the engine (transfer it). Each File
 * is dropped from `files` once served (a saver holds its own clone), so it can be collected.
 */
export function serveFiles(files: (File | undefined)[], opts: ServeOptions = {}): { port: MessagePort; close(): void } {
  const channel = new MessageChannel();
  const clients: MessagePort[] = [];
  let closed = false;
  const reply = (m: FromServer) => {
    if (!closed) channel.port1.postMessage(m);
  };
  // Reads each File's size and time in the engine's order, posting each slice as it is read.
  const sendMetadata = async (order: Uint32Array) => {
    try {
      for (let from = 0; from < order.length && !closed;) {
        if (opts.signal?.aborted) return reply({ type: 'metadataFailed', code: 'ABORTED', message: abortError(opts.signal).message });
        const sizes: number[] = [];
        const lastModified: number[] = [];
        const t = performance.now();
        do {
          const f = files[order[from + sizes.length]!];
          sizes.push(f?.size ?? 0);
          lastModified.push(f?.lastModified ?? 0);
        } while (from + sizes.length < order.length && performance.now() - t < METADATA_SLICE_MS);
        reply({ type: 'metadata', from, sizes, lastModified });
        from += sizes.length;
        opts.onMetadata?.(from, order.length);
        await new Promise<void>((r) => macrotask(r));
      }
    } catch (e) {
      reply({
        type: 'metadataFailed',
        code: 'SOURCE_READ',
        message: `the picked files' sizes and dates could not be read: ${(e as Error)?.message ?? String(e)}`,
      });
    }
  };
  channel.port1.onmessage = (e: MessageEvent<ToServer>) => {
    if (e.data?.type === 'metadata') {
      void sendMetadata(e.data.order);
      return;
    }
    if (e.data?.type !== 'connect') return;
    const client = e.data.port;
    clients.push(client);
    client.onmessage = (m: MessageEvent<FileRequest>) => {
      const { req, indices } = m.data;
      client.postMessage({ req, files: indices.map((i) => files[i] ?? null) } satisfies FileReply);
      for (const i of indices) files[i] = undefined;
      filesMade(indices.length);
    };
  };
  return {
    port: channel.port2,
    close() {
      closed = true;
      channel.port1.close();
      for (const c of clients) c.close();
    },
  };
}

/**
 * Page side, for a backup of a webkitdirectory list: the request's source (transfer its
 * `server`) and close() for when the backup is over. The list's sizes and times are read while
 * the backup runs (see the top of this file); `onProgress` tells how far that is.
 *
 * The Files are taken out of `files`, which is left empty: they are dropped as they are served
 * (see the top of this file), so the list cannot serve another backup. Throws USAGE for a list
 * already used (its paths still there, its Files gone).
 */
export function servedFileList(
  files: File[],
  relativePaths: readonly string[],
  signal?: AbortSignal,
  onProgress?: (done: number, total: number) => void,
): { source: BackupSource & { kind: 'served-files' }; close(): void } {
  if (files.length !== relativePaths.length) throw new CairnError('USAGE', 'this list of picked files was used by an earlier backup: pick the folder again');
  const { port, close } = serveFiles(files.splice(0), { signal, onMetadata: onProgress });
  // The Files it served and their metadata are garbage in this thread now, which V8 would not
  // notice for seconds: collected at once.
  const done = () => {
    close();
    collectSoon();
  };
  return { source: { kind: 'served-files', relativePaths: [...relativePaths], server: port }, close: done };
}
