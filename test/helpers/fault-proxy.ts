// A fault-injecting HTTP proxy for tests: it sits between a client and a real S3 server and,
// for a seeded share of requests, answers 500 / 503 / 429 itself, breaks the connection
// half-way through the request or the response, ends a response early, stops answering
// (a stalled request or a stalled response), or lets the response trickle in slowly. The Host
// header is passed through unchanged, so SigV4 presigned URLs made for the proxy's address
// verify at the server. `hold()` stalls every matching request from then on (for interrupts).

import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  | 'status500' // 500 InternalError
  | 'status503' // 503 SlowDown, Retry-After: 0
  | 'status503RetryAfter' // 503 SlowDown, Retry-After: 1 (seconds)
  | 'status429' // 429 Too Many Requests
  | 'resetRequest' // the connection is dropped while the request body arrives: the server never sees it
  | 'resetResponse' // the server answered; the connection is reset half-way through the body
  | 'truncateResponse' // the server answered; the body ends early and the connection closes cleanly
  | 'stallRequest' // the request is taken and never answered
  | 'stallResponse' // headers and half the body are sent, then nothing more
  | 'trickleResponse'; // the body arrives in pieces, a pause between each (slow but moving)

/** The faults every proxy used to inject (test/s3/faults.test.ts). */
export const CLASSIC_FAULTS: Fault[] = ['status500', 'status503', 'resetRequest', 'resetResponse'];
export const ALL_FAULTS: Fault[] = [
  'status500',
  'status503',
  'status503RetryAfter',
  'status429',
  'resetRequest',
  'resetResponse',
  'truncateResponse',
  'stallRequest',
  'stallResponse',
  'trickleResponse',
];

/** Faults that need a response body to break (anything else can hit any request). */
const BODY_FAULTS = new Set<Fault>(['resetResponse', 'truncateResponse', 'stallResponse', 'trickleResponse']);

export interface RequestInfo {
  method: string;
  /** Path and query as sent, e.g. `/bucket/prefix/data/ab/ab12…?X-Amz-…`. */
  url: string;
}

export interface FaultProxyOptions {
  seed: number;
  /** Share of requests (0…1) that get a fault. */
  rate: number;
  faults?: Fault[];
  /** Which fault a faulted request gets: a seeded draw (default), or each in turn, so every kind happens in a short run. */
  order?: 'random' | 'cycle';
  /** Requests never faulted (default: none). */
  spare?: (req: RequestInfo) => boolean;
  /** Trickled bodies arrive in this many pieces, `gapMs` apart (default 8 × 150 ms). */
  trickle?: { pieces: number; gapMs: number };
}

export interface FaultProxy {
  url: string;
  counts: Record<Fault | 'forwarded' | 'held' | 'requests', number>;
  /** From now on, stall every request `match` accepts (until `release()`). */
  hold(match: (req: RequestInfo) => boolean): void;
  release(): void;
  /** Keeps every request `match` accepts waiting, unanswered, until the gate is opened; then forwards them (and later ones) as usual. */
  gate(match: (req: RequestInfo) => boolean): Gate;
  close(): Promise<void>;
}

export interface Gate {
  /** How many requests have reached the gate so far. */
  arrived(): number;
  open(): void;
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

const STATUS: Partial<Record<Fault, { status: number; code: string; headers?: Record<string, string> }>> = {
  status500: { status: 500, code: 'InternalError' },
  status503: { status: 503, code: 'SlowDown', headers: { 'retry-after': '0' } },
  status503RetryAfter: { status: 503, code: 'SlowDown', headers: { 'retry-after': '1' } },
  status429: { status: 429, code: 'TooManyRequests' },
};

export async function startFaultProxy(target: string, opts: FaultProxyOptions): Promise<FaultProxy> {
  const rnd = mulberry32(opts.seed);
  const faults = opts.faults ?? CLASSIC_FAULTS;
  const trickle = opts.trickle ?? { pieces: 8, gapMs: 150 };
  const to = new URL(target);
  const counts = Object.fromEntries([...ALL_FAULTS, 'forwarded', 'held', 'requests'].map((k) => [k, 0])) as FaultProxy['counts'];
  // A body fault drawn for an answer without a body to break is owed to the next one that has one.
  const owed: Fault[] = [];
  let held: ((req: RequestInfo) => boolean) | undefined;
  let gated: { match: (req: RequestInfo) => boolean; waiting: (() => void)[]; arrived: number } | undefined;
  let cycled = 0;
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const info: RequestInfo = { method: req.method ?? 'GET', url: req.url ?? '/' };
    if (held?.(info)) {
      counts.held++;
      req.resume(); // take the request, answer nothing
      return;
    }
    if (gated?.match(info)) {
      gated.arrived++;
      gated.waiting.push(() => answer(req, res, info));
      return;
    }
    answer(req, res, info);
  });

  function answer(req: http.IncomingMessage, res: http.ServerResponse, info: RequestInfo): void {
    counts.requests++;
    const fault =
      opts.spare?.(info) || rnd() >= opts.rate
        ? undefined
        : opts.order === 'cycle'
          ? faults[cycled++ % faults.length]!
          : faults[Math.floor(rnd() * faults.length)]!;
    const status = fault && STATUS[fault];
    if (status) {
      counts[fault]++;
      req.resume();
      req.on('end', () => {
        res.writeHead(status.status, { 'content-type': 'application/xml', ...status.headers });
        res.end(`<?xml version="1.0"?><Error><Code>${status.code}</Code><Message>injected</Message></Error>`);
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
    if (fault === 'stallRequest') {
      counts.stallRequest++;
      req.resume();
      return;
    }
    forward(req, res, fault && BODY_FAULTS.has(fault) ? fault : undefined);
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse, drawn: Fault | undefined): void {
    counts.forwarded++;
    const up = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      const length = Number(upRes.headers['content-length'] ?? 0);
      const eligible = req.method !== 'HEAD' && length > 64;
      if (drawn && !eligible) owed.push(drawn);
      const fault = eligible ? (drawn ?? owed.shift()) : undefined;
      if (!fault) {
        upRes.pipe(res);
        return;
      }
      counts[fault]++;
      void breakBody(upRes, res, fault, length);
    });
    up.on('error', () => res.socket?.destroy());
    req.pipe(up);
  }

  async function breakBody(upRes: http.IncomingMessage, res: http.ServerResponse, fault: Fault, length: number): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of upRes) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const half = length >> 1;
    if (fault === 'trickleResponse') {
      const piece = Math.ceil(body.length / trickle.pieces);
      for (let at = 0; at < body.length; at += piece) {
        if (at > 0) await new Promise((r) => setTimeout(r, trickle.gapMs));
        if (res.destroyed) return;
        res.write(body.subarray(at, at + piece));
      }
      res.end();
      return;
    }
    res.write(body.subarray(0, half));
    if (fault === 'resetResponse') res.socket?.resetAndDestroy();
    else if (fault === 'truncateResponse') res.socket?.end();
    // stallResponse: nothing more, ever (the socket stays open until the client gives up).
  }

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    hold: (match) => void (held = match),
    release: () => void (held = undefined),
    gate(match) {
      const g = { match, waiting: [] as (() => void)[], arrived: 0 };
      gated = g;
      return {
        arrived: () => g.arrived,
        open() {
          if (gated === g) gated = undefined;
          for (const go of g.waiting.splice(0)) go();
        },
      };
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
