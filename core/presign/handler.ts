// The presign endpoint as one fetch-style function, `(Request) => Promise<Response>`, on web
// standards only (WebCrypto SigV4, streams), so the same code answers in Node (`cairn presign
// serve`), a Cloudflare Worker and an AWS Lambda function URL. It authenticates the device by
// its bearer token, reads a bounded JSON body, checks it (./policy) and answers with a
// presigned URL of minutes. `GET` tells a device who it is and what it may do, so clients can
// refuse a forbidden operation before starting it.

import { localSigner, type LocalSignerConfig, type UrlSigner } from '../backend/s3/url-signer';
import { bearerToken, deviceForToken, type Device } from './devices';
import { checkPrefix, checkRequest, Refusal } from './policy';

export interface PresignHandlerConfig {
  /** The bucket and the keys that sign for it. */
  s3: LocalSignerConfig;
  /** Repository prefix inside the bucket ('' = the bucket's root). */
  prefix: string;
  /** The current devices; asked on every request, so a revoked token stops working at once. */
  devices: () => readonly Device[] | Promise<readonly Device[]>;
  /** Browser origins allowed to call the endpoint (CORS); none = no browser access. */
  origins?: readonly string[];
  /** Presigned URL lifetime, 60…900 s (default 300). */
  expiresSeconds?: number;
  /** Largest request body accepted (default 8 KiB; a request is a few hundred bytes). */
  maxBodyBytes?: number;
  /** Told of every answer, for an audit log. */
  onAnswer?: (entry: AnswerLog) => void;
}

export interface AnswerLog {
  status: number;
  device?: string;
  method?: string;
  key?: string;
  reason?: string;
}

/** What `GET <endpoint>` answers an authenticated device. */
export interface DeviceInfo {
  device: string;
  role: Device['role'];
  prefix: string;
}

export const DEFAULT_EXPIRES_SECONDS = 300;
const DEFAULT_MAX_BODY = 8 * 1024;

export type PresignHandler = (request: Request) => Promise<Response>;

export function presignHandler(config: PresignHandlerConfig): PresignHandler {
  const expiresSeconds = config.expiresSeconds ?? DEFAULT_EXPIRES_SECONDS;
  if (!Number.isInteger(expiresSeconds) || expiresSeconds < 60 || expiresSeconds > 900) throw new RangeError('URL lifetime must be 60…900 seconds');
  const prefix = checkPrefix(config.prefix);
  const signer = localSigner({ ...config.s3, expiresSeconds });
  const maxBody = config.maxBodyBytes ?? DEFAULT_MAX_BODY;
  return async (request) => {
    const cors = corsHeaders(request, config.origins ?? []);
    const log: AnswerLog = { status: 0 };
    let res: Response;
    try {
      res = await answer(request, { prefix, signer, maxBody, devices: config.devices, log });
    } catch (e) {
      const r = e instanceof Refusal ? e : undefined;
      log.reason = r?.reason ?? 'internal';
      res = json(r?.status ?? 500, { error: r ? r.message : 'the endpoint failed to sign', reason: log.reason });
      if (r?.status === 401) res.headers.set('www-authenticate', 'Bearer');
    }
    for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
    log.status = res.status;
    config.onAnswer?.(log);
    return res;
  };
}

interface Context {
  prefix: string;
  signer: UrlSigner;
  maxBody: number;
  devices: PresignHandlerConfig['devices'];
  log: AnswerLog;
}

async function answer(request: Request, c: Context): Promise<Response> {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204 });
  if (request.method !== 'POST' && request.method !== 'GET') throw new Refusal(405, 'method', 'POST a request to sign, or GET to see this device');
  const device = await authenticate(request, c.devices);
  c.log.device = device.name;
  if (request.method === 'GET') return json(200, { device: device.name, role: device.role, prefix: c.prefix } satisfies DeviceInfo);
  const body = await readJson(request, c.maxBody);
  const checked = checkRequest(body, c.prefix, device.role);
  c.log.method = checked.method;
  c.log.key = checked.key || `(list ${checked.query?.['prefix'] ?? ''})`;
  return json(200, await c.signer.sign(checked));
}

async function authenticate(request: Request, devices: Context['devices']): Promise<Device> {
  const token = bearerToken(request.headers.get('authorization'));
  if (!token) throw new Refusal(401, 'no-token', 'send the device token as "Authorization: Bearer <token>"');
  const device = await deviceForToken(await devices(), token);
  if (!device) throw new Refusal(401, 'bad-token', 'unknown or revoked device token');
  return device;
}

/** The body as JSON, refusing more than `max` bytes without reading them. */
async function readJson(request: Request, max: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > max) throw new Refusal(413, 'too-large', `request body over ${max} bytes`);
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    size += next.value.length;
    if (size > max) {
      await reader!.cancel().catch(() => {});
      throw new Refusal(413, 'too-large', `request body over ${max} bytes`);
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) bytes.set(c, (at += c.length) - c.length);
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new Refusal(400, 'malformed', 'body is not UTF-8 JSON');
  }
}

function corsHeaders(request: Request, origins: readonly string[]): Record<string, string> {
  const origin = request.headers.get('origin');
  if (!origin || !origins.includes(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-max-age': '600',
    vary: 'origin',
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}
