// Page side of a streamed download: ask the engine for a ticket, hand its port to the service
// worker, then let the browser fetch the ticket's URL as a download (the service worker answers
// it with a stream from the engine). Without a controlling service worker (first visit before
// it activates, or a browser without one) the bytes are collected into a Blob instead — the
// browser may keep that in memory, so the UI should prefer showSaveFilePicker there.

import * as Comlink from 'comlink';
import type { DownloadKind, DownloadTicket, EngineApi, ProgressSnapshot, RestoreResultView, SelectionRequest } from '../api';

export interface StartedDownload {
  id: string;
  filename: string;
  /** 'service-worker' streams; 'blob' collected the bytes in the page first. */
  via: 'service-worker' | 'blob';
  /** Resolves when the last byte went out: files restored and files that failed. */
  result: Promise<RestoreResultView>;
}

const HANDOFF_TIMEOUT_MS = 5000;

async function handOff(sw: ServiceWorker, ticket: DownloadTicket): Promise<void> {
  const ack = new MessageChannel();
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service worker did not answer')), HANDOFF_TIMEOUT_MS);
    ack.port1.onmessage = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  sw.postMessage({ type: 'cairn-download', id: ticket.id, filename: ticket.filename, size: ticket.size }, [ticket.port, ack.port2]);
  await ready;
  ack.port1.close();
}

/**
 * Chromium does not send `<a download>` requests through the service worker, so the stream URL
 * is opened in a hidden iframe: a navigation the service worker answers, which turns into a
 * download because of its Content-Disposition (StreamSaver.js does the same).
 */
function navigateHidden(href: string): void {
  const frame = document.createElement('iframe');
  frame.hidden = true;
  frame.src = href;
  document.body.append(frame);
  setTimeout(() => frame.remove(), 60_000);
}

function click(href: string, filename: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
}

/** Reads the whole stream through the port (fallback without a service worker). */
async function collect(port: MessagePort): Promise<Blob> {
  const parts: BlobPart[] = [];
  for (;;) {
    const m = await new Promise<{ type: string; list?: Uint8Array<ArrayBuffer>[]; message?: string }>((resolve) => {
      port.onmessage = (ev) => resolve(ev.data);
      port.postMessage({ type: 'pull' });
    });
    if (m.type === 'chunks') parts.push(...m.list!);
    else if (m.type === 'end') break;
    else throw new Error(m.message ?? 'download failed');
  }
  port.close();
  return new Blob(parts);
}

export async function startDownload(
  engine: Comlink.Remote<EngineApi>,
  snapshotId: string,
  path: string[],
  kind: DownloadKind,
  onProgress?: (p: ProgressSnapshot) => void,
): Promise<StartedDownload> {
  return deliver(engine, await engine.download(snapshotId, path, kind, onProgress ? Comlink.proxy(onProgress) : undefined));
}

/** One ZIP of several ticked items of a folder. */
export async function startSelectionDownload(
  engine: Comlink.Remote<EngineApi>,
  req: SelectionRequest,
  onProgress?: (p: ProgressSnapshot) => void,
): Promise<StartedDownload> {
  return deliver(engine, await engine.downloadSelection(req, onProgress ? Comlink.proxy(onProgress) : undefined));
}

async function deliver(engine: Comlink.Remote<EngineApi>, ticket: DownloadTicket): Promise<StartedDownload> {
  const result = engine.downloadResult(ticket.id);
  result.catch(() => {});
  const sw = navigator.serviceWorker?.controller;
  const reg = sw ? await navigator.serviceWorker.getRegistration() : undefined;
  if (sw && reg) {
    await handOff(sw, ticket);
    navigateHidden(new URL(ticket.url, reg.scope).href);
    return { id: ticket.id, filename: ticket.filename, via: 'service-worker', result };
  }
  const blob = await collect(ticket.port);
  const url = URL.createObjectURL(blob);
  click(url, ticket.filename);
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { id: ticket.id, filename: ticket.filename, via: 'blob', result };
}
