// A tiny reference presign endpoint (the contract in core/backend/s3/PRESIGN-ENDPOINT.md), for
// tests and local development. It holds the S3 keys, checks each request against a repository
// prefix, optionally refuses deletes (append-only), and answers with a presigned URL.
//
//   npx tsx test/s3/presign-endpoint.ts --env /tmp/s3/env.json [--port 8788] [--prefix repo]
//                                       [--append-only] [--origin http://localhost:5173]

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { localSigner, type SignRequest, type UrlSigner } from '../../core/backend/s3';

export interface PresignEndpointOptions {
  signer: UrlSigner;
  /** Repository prefix inside the bucket ('' = whole bucket); every key must lie under it. */
  prefix?: string;
  /** Refuse DELETE except for lock files (as rest-server --append-only does). */
  appendOnly?: boolean;
  /** Origin allowed to call this endpoint from a browser. */
  origin?: string;
  port?: number;
}

export interface PresignEndpoint {
  url: string;
  /** Every request body seen, for tests. */
  seen: SignRequest[];
  close(): Promise<void>;
}

const METHODS = new Set(['GET', 'PUT', 'HEAD', 'DELETE']);
const SIGNABLE_HEADERS = new Set(['content-md5', 'if-none-match', 'range']);

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Validates one request; returns it normalised or throws a Refusal. */
export function checkRequest(body: unknown, prefix: string, appendOnly: boolean): SignRequest {
  const req = body as Partial<SignRequest> | null;
  if (!req || typeof req !== 'object' || typeof req.method !== 'string' || typeof req.key !== 'string') throw new Refusal(400, 'need {method, key}');
  if (!METHODS.has(req.method)) throw new Refusal(400, `method ${req.method} not allowed`);
  const strings = (o: unknown) => o === undefined || (typeof o === 'object' && o !== null && Object.values(o).every((v) => typeof v === 'string'));
  if (!strings(req.query) || !strings(req.headers)) throw new Refusal(400, 'query and headers must map names to strings');
  const base = prefix ? prefix.replace(/\/+$/, '') + '/' : '';
  if (req.key === '') {
    // Only ListObjectsV2 inside the repository.
    if (req.method !== 'GET' || req.query?.['list-type'] !== '2' || !(req.query['prefix'] ?? '').startsWith(base))
      throw new Refusal(403, 'only listings under the repository prefix');
  } else if (!req.key.startsWith(base) || req.key.split('/').some((s) => s === '..' || s === '.')) {
    throw new Refusal(403, `key outside the repository: ${req.key}`);
  } else if (req.query && Object.keys(req.query).length) {
    throw new Refusal(403, 'no sub-resources on objects');
  }
  for (const name of Object.keys(req.headers ?? {})) {
    if (!SIGNABLE_HEADERS.has(name)) throw new Refusal(403, `will not sign header ${name}`);
  }
  if (req.method === 'PUT' && !req.headers?.['content-md5']) throw new Refusal(403, 'PUT must carry content-md5');
  if (req.method === 'DELETE' && appendOnly && !req.key.startsWith(`${base}locks/`)) throw new Refusal(403, 'append-only: deleting is not allowed');
  return { method: req.method, key: req.key, ...(req.query ? { query: req.query } : {}), ...(req.headers ? { headers: req.headers } : {}) };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > 64 * 1024) throw new Refusal(413, 'request too large');
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Refusal(400, 'body is not JSON');
  }
}

export async function startPresignEndpoint(opts: PresignEndpointOptions): Promise<PresignEndpoint> {
  const seen: SignRequest[] = [];
  const cors = (res: ServerResponse) => {
    if (!opts.origin) return;
    res.setHeader('access-control-allow-origin', opts.origin);
    res.setHeader('access-control-allow-methods', 'POST');
    res.setHeader('access-control-allow-headers', 'content-type, authorization');
    res.setHeader('vary', 'origin');
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    cors(res);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      cors(res);
      res.writeHead(204).end();
      return;
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
    readJson(req)
      .then(async (body) => {
        const checked = checkRequest(body, opts.prefix ?? '', opts.appendOnly ?? false);
        seen.push(checked);
        send(res, 200, await opts.signer.sign(checked));
      })
      .catch((e: unknown) => send(res, e instanceof Refusal ? e.status : 500, { error: e instanceof Error ? e.message : String(e) }));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/presign`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(argv: string[]): Promise<void> {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const envPath = arg('--env') ?? process.env['CAIRN_S3_ENV'];
  if (!envPath) throw new Error('usage: presign-endpoint.ts --env <dir>/env.json [--port P] [--prefix repo] [--append-only] [--origin URL]');
  const env = JSON.parse(await readFile(envPath, 'utf8')) as {
    endpoint: string;
    region: string;
    bucket: string;
    accessKeyId: string;
    secretAccessKey: string;
    origin?: string;
  };
  const ep = await startPresignEndpoint({
    signer: localSigner({ ...env, pathStyle: true }),
    prefix: arg('--prefix') ?? '',
    appendOnly: argv.includes('--append-only'),
    origin: arg('--origin') ?? env.origin,
    port: Number(arg('--port') ?? 8788),
  });
  console.log(`presign endpoint for ${env.endpoint}/${env.bucket}: ${ep.url}${argv.includes('--append-only') ? ' (append-only)' : ''}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
