// `cairn presign serve`: core/presign's fetch-style handler behind node:http. This adapter only
// turns an IncomingMessage into a Request (reading at most one byte more than the body cap, so
// the handler can refuse an oversized body without the rest being read), caps requests in
// flight, sets timeouts against slow clients, and closes gracefully.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PresignHandler } from '../../core/presign';

export interface NodeServerOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** Requests handled at once; more are answered 429 at once (default 64). */
  maxInFlight?: number;
}

export interface RunningServer {
  url: string;
  /** Stops accepting, lets requests in flight finish (at most `graceMs`), then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Reads at most `cap` bytes of the body. The rest is
 * not kept: once the answer is sent Node reads and discards it (closing the connection instead
 * would reset it under a client still sending, which then never sees the answer); the server's
 * requestTimeout bounds how long that may take.
 */
function readCapped(req: IncomingMessage, cap: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData).off('end', done).off('error', reject);
      resolve(Buffer.concat(chunks).subarray(0, cap));
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size >= cap) done();
    };
    req.on('data', onData).on('end', done).on('error', reject);
  });
}

async function serve(handler: PresignHandler, req: IncomingMessage, res: ServerResponse, maxBody: number): Promise<void> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const declared = Number(req.headers['content-length'] ?? NaN);
  const hasBody = req.method === 'POST' && !(declared > maxBody);
  const bytes = hasBody ? await readCapped(req, maxBody + 1) : undefined;
  const request = new Request(`http://localhost${req.url ?? '/'}`, { method: req.method, headers, ...(bytes ? { body: new Uint8Array(bytes) } : {}) });
  const response = await handler(request);
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
}

export async function startNodeServer(handler: PresignHandler, opts: NodeServerOptions): Promise<RunningServer> {
  let inFlight = 0;
  const limit = opts.maxInFlight ?? 64;
  const server: Server = createServer((req, res) => {
    if (inFlight >= limit) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"too many requests at once","reason":"busy"}');
      return;
    }
    inFlight++;
    serve(handler, req, res, opts.maxBodyBytes)
      .catch(() => {
        if (!res.headersSent)
          res.writeHead(400, { 'content-type': 'application/json', connection: 'close' }).end('{"error":"unreadable request","reason":"malformed"}');
        else res.destroy();
      })
      .finally(() => inFlight--);
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 50;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}/`,
    close: (graceMs = 5_000) =>
      new Promise((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
