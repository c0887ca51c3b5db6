// AWS Signature Version 4 for S3, on WebCrypto HMAC-SHA256 (no Node APIs: runs in workers).
// Two forms share one canonical-request builder:
// - presignUrl: query-string auth ("Authenticating Requests: Using Query Parameters"), the
//   form the browser uses — a plain URL any `fetch` can send, payload `UNSIGNED-PAYLOAD`;
// - signHeaders: Authorization-header auth, used for AWS's published test vectors and by
//   callers that must send the request themselves (bucket set-up in tests).
// Spec: https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html and, for
// S3's deviations (path segments encoded once, no path normalisation),
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** STS session token; sent as X-Amz-Security-Token. */
  sessionToken?: string;
}

export interface SignParams {
  method: string;
  /** `host[:port]` exactly as the Host header will be sent (URL.host drops default ports). */
  host: string;
  /** Decoded path, e.g. `/bucket/data/ab/ab12…`; each segment is URI-encoded here, `/` kept. */
  path: string;
  /** Decoded query parameters; encoded and sorted here. */
  query?: Record<string, string>;
  /** Headers to sign besides `host` (names any case). The caller must send them unchanged. */
  headers?: Record<string, string>;
  credentials: Credentials;
  region: string;
  /** Default `s3`. */
  service?: string;
  date: Date;
}

export interface PresignParams extends SignParams {
  /** Validity in seconds, 1 … 604800 (7 days, S3's limit). */
  expiresSeconds: number;
}

export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const ALGORITHM = 'AWS4-HMAC-SHA256';
const MAX_EXPIRES = 7 * 24 * 3600;
const utf8 = new TextEncoder();

/** RFC 3986 encoding as SigV4 wants it: everything but `A-Za-z0-9-._~` as %XX (upper case). */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** S3's canonical URI: each segment encoded once, slashes kept, no `.`/`..` normalisation. */
export function encodePath(path: string): string {
  return path.split('/').map(uriEncode).join('/');
}

/** Parameters encoded, then sorted by name and value (code-unit order of the encoded text). */
export function canonicalQuery(query: Record<string, string>): string {
  return Object.entries(query)
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** `20130524T000000Z` */
export function amzDate(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function canonicalHeaders(host: string, headers: Record<string, string> = {}) {
  const all = new Map<string, string>([['host', host]]);
  for (const [name, value] of Object.entries(headers)) {
    // Trim and collapse runs of spaces (SigV4 "Trimall"; quoted strings too).
    all.set(name.toLowerCase(), String(value).trim().replace(/ +/g, ' '));
  }
  const names = [...all.keys()].sort();
  return {
    text: names.map((n) => `${n}:${all.get(n)}\n`).join(''),
    signed: names.join(';'),
  };
}

function hex(b: ArrayBuffer): string {
  return Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
}

async function sha256Hex(s: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', utf8.encode(s)));
}

async function hmac(key: BufferSource | CryptoKey, msg: string): Promise<ArrayBuffer> {
  const k = key instanceof CryptoKey ? key : await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, utf8.encode(msg));
}

// Signing keys change once a day per scope; cache them per credentials object.
const signingKeys = new WeakMap<Credentials, Map<string, Promise<CryptoKey>>>();

function signingKey(c: Credentials, day: string, region: string, service: string): Promise<CryptoKey> {
  let byScope = signingKeys.get(c);
  if (!byScope) signingKeys.set(c, (byScope = new Map()));
  const scope = `${day}/${region}/${service}`;
  let key = byScope.get(scope);
  if (!key) {
    if (byScope.size > 8) byScope.clear();
    key = (async () => {
      let k = await hmac(utf8.encode('AWS4' + c.secretAccessKey), day);
      for (const part of [region, service, 'aws4_request']) k = await hmac(k, part);
      return crypto.subtle.importKey('raw', k, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    })();
    key.catch(() => byScope.delete(scope));
    byScope.set(scope, key);
  }
  return key;
}

interface Signed {
  signature: string;
  signedHeaders: string;
  canonicalRequest: string;
  credential: string;
}

async function sign(p: SignParams, query: Record<string, string>, payloadHash: string, date: string): Promise<Signed> {
  const day = date.slice(0, 8);
  const service = p.service ?? 's3';
  const { text, signed } = canonicalHeaders(p.host, p.headers);
  const canonicalRequest = [p.method.toUpperCase(), encodePath(p.path), canonicalQuery(query), text, signed, payloadHash].join('\n');
  const scope = `${day}/${p.region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, date, scope, await sha256Hex(canonicalRequest)].join('\n');
  const key = await signingKey(p.credentials, day, p.region, service);
  return {
    signature: hex(await hmac(key, stringToSign)),
    signedHeaders: signed,
    canonicalRequest,
    credential: `${p.credentials.accessKeyId}/${scope}`,
  };
}

function checkPath(path: string): void {
  if (!path.startsWith('/')) throw new TypeError(`SigV4 path must start with "/": ${path}`);
}

/** A query-string-signed URL: `<scheme>://<host><path>?…&X-Amz-Signature=…`. */
export async function presignUrl(p: PresignParams, scheme: 'http' | 'https' = 'https'): Promise<string> {
  checkPath(p.path);
  if (!Number.isInteger(p.expiresSeconds) || p.expiresSeconds < 1 || p.expiresSeconds > MAX_EXPIRES) {
    throw new RangeError(`presigned URL expiry must be 1…${MAX_EXPIRES} s, got ${p.expiresSeconds}`);
  }
  const date = amzDate(p.date);
  const day = date.slice(0, 8);
  const { signed } = canonicalHeaders(p.host, p.headers);
  const query: Record<string, string> = {
    ...p.query,
    'X-Amz-Algorithm': ALGORITHM,
    'X-Amz-Credential': `${p.credentials.accessKeyId}/${day}/${p.region}/${p.service ?? 's3'}/aws4_request`,
    'X-Amz-Date': date,
    'X-Amz-Expires': String(p.expiresSeconds),
    'X-Amz-SignedHeaders': signed,
  };
  if (p.credentials.sessionToken) query['X-Amz-Security-Token'] = p.credentials.sessionToken;
  const { signature } = await sign(p, query, UNSIGNED_PAYLOAD, date);
  return `${scheme}://${p.host}${encodePath(p.path)}?${canonicalQuery(query)}&X-Amz-Signature=${signature}`;
}

export interface SignedHeaders {
  /** Headers to add to the request: authorization, x-amz-date, and x-amz-security-token if any. */
  headers: Record<string, string>;
  signature: string;
  canonicalRequest: string;
}

/**
 * Authorization-header signing. `payloadHash` is the hex SHA-256 of the body or
 * `UNSIGNED-PAYLOAD`; S3 also wants it sent as `x-amz-content-sha256` (pass it in `headers`).
 * If `headers` has no `x-amz-date`, one is added and signed.
 */
export async function signHeaders(p: SignParams, payloadHash: string): Promise<SignedHeaders> {
  checkPath(p.path);
  const headers: Record<string, string> = { ...p.headers };
  const dateName = Object.keys(headers).find((n) => n.toLowerCase() === 'x-amz-date');
  const date = dateName ? headers[dateName]! : amzDate(p.date);
  if (!dateName) headers['x-amz-date'] = date;
  if (p.credentials.sessionToken) headers['x-amz-security-token'] = p.credentials.sessionToken;
  const s = await sign({ ...p, headers }, p.query ?? {}, payloadHash, date);
  const authorization = `${ALGORITHM} Credential=${s.credential}, SignedHeaders=${s.signedHeaders}, Signature=${s.signature}`;
  const added: Record<string, string> = { authorization, 'x-amz-date': date };
  if (p.credentials.sessionToken) added['x-amz-security-token'] = p.credentials.sessionToken;
  return { headers: added, signature: s.signature, canonicalRequest: s.canonicalRequest };
}
