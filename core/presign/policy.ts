// What a device may have signed. A request names a method, a full key and optionally the S3
// query and headers to sign (core/backend/s3/PRESIGN-ENDPOINT.md). Anything not plainly one of
// restic's repository files under the configured prefix is refused: keys must spell restic's
// layout exactly (so `..`, `%2e%2e`, absolute keys, other buckets and sub-resources cannot be
// named), listings must be ListObjectsV2 of one of the repository's folders, and only the
// headers Cairn signs are signed. Roles then narrow the methods: `read` reads, `append-only`
// also creates objects that do not exist yet (`if-none-match: *`, `content-md5` both signed, so
// the bucket refuses an overwrite and a different body) and removes lock files, `maintenance`
// does everything forget and prune need.

import type { SignRequest, S3Method } from '../backend/s3/url-signer';
import type { Role } from './devices';

/** Why a request is refused; `status` is the HTTP answer, `reason` a stable word for logs and tests. */
export class Refusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 413 | 429,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const METHODS = new Set<S3Method>(['GET', 'HEAD', 'PUT', 'DELETE']);
const FIELDS = new Set(['method', 'key', 'query', 'headers']);
const LIST_QUERY = new Set(['list-type', 'prefix', 'max-keys', 'continuation-token', 'start-after']);
const MAX_KEY = 1024;
const ID = '[0-9a-f]{64}';

/** A repository prefix: '' or clean segments of `[A-Za-z0-9._-]`, none `.` or `..`. */
export function checkPrefix(prefix: string): string {
  const p = prefix.replace(/^\/+|\/+$/g, '');
  if (p && p.split('/').some((s) => !/^[A-Za-z0-9._-]+$/.test(s) || s === '.' || s === '..'))
    throw new TypeError(`repository prefix "${prefix}" must be plain path segments (letters, digits, ".", "_", "-")`);
  return p;
}

function refuse(reason: string, message: string, status: 400 | 403 = 403): never {
  throw new Refusal(status, reason, message);
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) refuse('malformed', `"${what}" must map names to strings`, 400);
  const entries = Object.entries(v);
  if (entries.length > 16 || entries.some(([k, x]) => typeof x !== 'string' || k.length > 64 || x.length > MAX_KEY))
    refuse('malformed', `"${what}" must map at most 16 short names to short strings`, 400);
  return Object.fromEntries(entries) as Record<string, string>;
}

/** Decodes `%XX` until nothing changes, so `%252e` is seen as `.` too. */
function fullyDecoded(segment: string): string {
  let s = segment;
  for (let i = 0; i < 4; i++) {
    let d: string;
    try {
      d = decodeURIComponent(s);
    } catch {
      return s;
    }
    if (d === s) return s;
    s = d;
  }
  return s;
}

/** The key's path inside the repository, or a refusal naming what is wrong with it. */
function repositoryPath(key: string, base: string): string {
  if (key.length > MAX_KEY) refuse('bad-key', 'key too long', 400);
  if (key.startsWith('/')) refuse('outside-prefix', `absolute key refused: ${key.slice(0, 100)}`);
  if (/[\\\x00-\x1f\x7f]/.test(key)) refuse('bad-key', 'key holds a backslash or a control character');
  if (key.split('/').some((s) => ['.', '..', ''].includes(fullyDecoded(s))))
    refuse('dot-segment', `key has an empty, "." or ".." segment: ${key.slice(0, 100)}`);
  if (!key.startsWith(base)) refuse('outside-prefix', `key outside the repository prefix: ${key.slice(0, 100)}`);
  const rest = key.slice(base.length);
  const layout = new RegExp(`^(config|(keys|locks|snapshots|index)/${ID}|data/([0-9a-f]{2})/${ID})$`).exec(rest);
  if (!layout || (layout[3] && !rest.startsWith(`data/${layout[3]}/${layout[3]}`)))
    refuse('not-repository-file', `not a restic repository file: ${rest.slice(0, 100)}`);
  return rest;
}

function checkListing(query: Record<string, string>, base: string): void {
  for (const name of Object.keys(query)) {
    if (/^(x-amz-|response-)/i.test(name)) refuse('forged-query', `query parameter ${name} is not allowed`);
    if (!LIST_QUERY.has(name)) refuse('forged-query', `query parameter ${name} is not allowed in a listing`);
  }
  if (query['list-type'] !== '2') refuse('bad-listing', 'only ListObjectsV2 (list-type=2) listings');
  const prefix = query['prefix'] ?? '';
  if (!new RegExp(`^(keys|locks|snapshots|index|data)/([0-9a-f]{2}/)?$`).test(prefix.slice(base.length)) || !prefix.startsWith(base))
    refuse('outside-prefix', `listing outside the repository's folders: ${prefix.slice(0, 100)}`);
  if (query['max-keys'] !== undefined && !/^([1-9]\d{0,2}|1000)$/.test(query['max-keys'])) refuse('bad-listing', 'max-keys must be 1…1000', 400);
  if (query['start-after'] !== undefined && !query['start-after'].startsWith(base)) refuse('outside-prefix', 'start-after outside the repository prefix');
}

function checkHeaders(method: S3Method, headers: Record<string, string>, role: Role, rest: string): void {
  for (const name of Object.keys(headers)) {
    if (!(method === 'PUT' && (name === 'content-md5' || name === 'if-none-match'))) refuse('header', `will not sign header "${name}" for ${method}`);
  }
  if (method !== 'PUT') return;
  if (!/^[A-Za-z0-9+/]{22}==$/.test(headers['content-md5'] ?? '')) refuse('no-content-md5', 'PUT must sign content-md5 (base64 of 16 bytes)');
  const inm = headers['if-none-match'];
  if (inm !== undefined && inm !== '*') refuse('header', 'if-none-match may only be "*"');
  if (role === 'append-only' && inm !== '*') refuse('overwrite', `append-only: PUT ${rest} must carry if-none-match: * (no overwrites)`);
}

function checkRole(role: Role, method: S3Method, rest: string | undefined): void {
  if (method === 'GET' || method === 'HEAD') return;
  if (role === 'read') refuse('role', `read-only device: ${method} is not allowed`);
  if (role === 'append-only' && method === 'DELETE' && !rest?.startsWith('locks/')) refuse('role', `append-only: deleting ${rest} is not allowed`);
}

/** Checks one decoded request body against the prefix and role; returns what to sign. */
export function checkRequest(body: unknown, prefix: string, role: Role): SignRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) refuse('malformed', 'body must be a JSON object {method, key, query?, headers?}', 400);
  const b = body as Record<string, unknown>;
  const extra = Object.keys(b).find((k) => !FIELDS.has(k));
  if (extra) refuse('malformed', `unknown field "${extra.slice(0, 40)}"`, 400);
  if (typeof b.method !== 'string' || typeof b.key !== 'string') refuse('malformed', 'need "method" and "key" strings', 400);
  const method = b.method as S3Method;
  if (!METHODS.has(method)) refuse('method', `method ${b.method.slice(0, 20)} not allowed`, 400);
  const query = stringMap(b.query, 'query');
  const headers = stringMap(b.headers, 'headers');
  const base = prefix ? `${prefix}/` : '';
  let rest: string | undefined;
  if (b.key === '') {
    if (method !== 'GET') refuse('bad-listing', 'bucket-level requests must be listings (GET)');
    checkListing(query, base);
  } else {
    rest = repositoryPath(b.key, base);
    const q = Object.keys(query)[0];
    if (q !== undefined) refuse('forged-query', `no query parameters (sub-resources) on objects: ${q.slice(0, 40)}`);
  }
  checkHeaders(method, headers, role, rest ?? '');
  checkRole(role, method, rest);
  return {
    method,
    key: b.key,
    ...(Object.keys(query).length ? { query } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}
