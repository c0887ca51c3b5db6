// A fault-injecting HTTP proxy for tests: it sits between a client and a real S3 server and,
// for a seeded share of requests, answers 500/503 itself or breaks the connection half-way
// through the request or the response body. The Host header is passed through unchanged,
// so SigV4 presigned URLs made for the proxy's address verify at the server.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'status500' | 'status503' | 'resetRequest' | 'resetResponse';

export interface FaultProxy {
  url: string;
  counts: Record<Fault | 'forwarded', number>;
  close(): Promise<void>;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startFaultProxy(target: string, opts: { seed: number; rate: number; faults?: Fault[] }): Promise<FaultProxy> {
  const rnd = mulberry32(opts.seed);
  const faults = opts.faults ?? ['status500', 'status503', 'resetRequest', 'resetResponse'];
  const to = new URL(target);
  const counts: FaultProxy['counts'] = { status500: 0, status503: 0, resetRequest: 0, resetResponse: 0, forwarded: 0 };
  let owedResets = 0;
  const server = http.createServer((req, res) => {
    const fault = rnd() < opts.rate ? faults[Math.floor(rnd() * faults.length)]! : undefined;
    if (fault === 'status500' || fault === 'status503') {
      counts[fault]++;
      req.resume();
      req.on('end', () => {
        res.writeHead(fault === 'status500' ? 500 : 503, { 'content-type': 'application/xml', ...(fault === 'status503' ? { 'retry-after': '0' } : {}) });
        res.end(`<?xml version="1.0"?><Error><Code>${fault === 'status500' ? 'InternalError' : 'SlowDown'}</Code><Message>injected</Message></Error>`);
      });
      return;
    }
    if (fault === 'resetRequest') {
      // Take part of the body, then drop the connection: the server never sees the request.
      counts.resetRequest++;
      let seen = 0;
      req.on('data', (d: Buffer) => {
        seen += d.length;
        if (seen > 1024) req.socket.destroy();
      });
      req.on('end', () => req.socket.destroy());
      return;
    }
    counts.forwarded++;
    const up = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      const eligible = req.method !== 'HEAD' && Number(upRes.headers['content-length'] ?? 0) > 64;
      // A reset drawn for an answer without a body to break is owed to the next one that has
      // one, so the fault happens however few such answers a run sees.
      if (fault === 'resetResponse' && !eligible) owedResets++;
      if (eligible && (fault === 'resetResponse' || owedResets > 0)) {
        if (fault !== 'resetResponse') owedResets--;
        // The request reached the server; break the answer off half-way.
        counts.resetResponse++;
        let sent = 0;
        const half = Number(upRes.headers['content-length']) >> 1;
        upRes.on('data', (d: Buffer) => {
          if (sent + d.length >= half) {
            res.write(d.subarray(0, half - sent));
            res.socket?.destroy();
            upRes.destroy();
          } else {
            res.write(d);
            sent += d.length;
          }
        });
        upRes.on('end', () => res.end());
        return;
      }
      upRes.pipe(res);
    });
    up.on('error', () => res.socket?.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
