// The streaming-download route: plumbing only. The page posts {type:'cairn-download', id,
// filename, size} with two ports — the engine's data port and an ack port; a request to
// `…/__cairn/download/<id>/<name>` is then answered with a ReadableStream that pulls chunks
// from the engine worker through the data port (protocol in workers/engine/download.ts).
// The stream's queue holds one chunk, so a slow disk or a paused download slows the engine.

/// <reference lib="webworker" />

const DOWNLOAD_MARK = '/__cairn/download/';

interface Pending {
  port: MessagePort;
  filename: string;
  size?: number;
  at: number;
}

type EngineChunk = { type: 'chunks'; list: Uint8Array[] } | { type: 'end' } | { type: 'error'; message: string };

const pending = new Map<string, Pending>();

/** Content-Disposition with an ASCII fallback and the exact UTF-8 name (RFC 6266 / 5987). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const utf8 = encodeURIComponent(filename).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

/**
 * Chunks handed on to the browser are garbage here, and this worker allocates next to nothing
 * else, so V8 left them for long: every 8 MiB, one large ArrayBuffer that is never written
 * makes it collect (as core/memory/garbage.ts does for the engine's threads; sw/ stands alone).
 */
let handed = 0;
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- written, never read: that is the point
let nudge: ArrayBuffer | undefined;
function handedOn(bytes: number): void {
  handed += bytes;
  if (handed < 8 << 20) return;
  handed = 0;
  try {
    nudge = new ArrayBuffer(64 << 20);
    nudge = undefined;
  } catch {
    // out of address space: no hint this time
  }
}

function pull(port: MessagePort): Promise<EngineChunk> {
  return new Promise((resolve) => {
    port.onmessage = (ev: MessageEvent<EngineChunk>) => resolve(ev.data);
    port.postMessage({ type: 'pull' });
  });
}

export function downloadResponse(id: string): Response {
  const p = pending.get(id);
  if (!p)
    return new Response('This download link has expired. Start the download again from Cairn.', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  pending.delete(id);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const m = await pull(p.port);
        if (m.type === 'chunks') {
          for (const b of m.list) {
            controller.enqueue(b);
            handedOn(b.buffer.byteLength);
          }
        } else if (m.type === 'end') controller.close();
        else controller.error(new Error(m.message));
      },
      cancel() {
        p.port.postMessage({ type: 'cancel' });
      },
    },
    { highWaterMark: 1 },
  );
  const headers: Record<string, string> = {
    'content-type': p.filename.endsWith('.zip') ? 'application/zip' : 'application/octet-stream',
    'content-disposition': contentDisposition(p.filename),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  if (p.size !== undefined) headers['content-length'] = String(p.size);
  return new Response(body, { headers });
}

export function installDownloadRoute(scope: ServiceWorkerGlobalScope): void {
  scope.addEventListener('message', (ev: ExtendableMessageEvent) => {
    const m = ev.data as { type?: string; id?: string; filename?: string; size?: number } | null;
    if (m?.type !== 'cairn-download' || !m.id || !ev.ports[0]) return;
    // Tickets are used within seconds; stale ones are dropped.
    const now = Date.now();
    for (const [k, v] of pending) {
      if (now - v.at <= 5 * 60_000) continue;
      v.port.close();
      pending.delete(k);
    }
    pending.set(m.id, { port: ev.ports[0], filename: m.filename ?? 'download', size: m.size, at: now });
    ev.ports[1]?.postMessage({ type: 'ready', id: m.id });
  });
}

/** The download ID in a URL of this route, if it is one. */
export function downloadId(url: URL): string | undefined {
  const at = url.pathname.indexOf(DOWNLOAD_MARK);
  if (at < 0) return undefined;
  return url.pathname.slice(at + DOWNLOAD_MARK.length).split('/')[0] || undefined;
}
