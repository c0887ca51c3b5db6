// A Backend on an S3 bucket, talking to it only through presigned URLs and plain `fetch`
// (restic's internal/backend/s3 does the same operations through minio-go). Every request
// asks the UrlSigner for a fresh URL, so a retry (core/backend/retry.ts wraps this) is signed
// anew. Objects live at `<prefix>/<restic path>`, e.g. `repo/data/ab/ab12…`.

import { CairnError, throwIfAborted } from '../../errors';
import { base64Encode } from '../../crypto/base64';
import {
  handleString,
  objectPath,
  type Backend,
  type FileInfo,
  type FileType,
  type Handle,
  type LoadOptions,
  type PreparedBody,
  type RequestOptions,
  type SaveData,
} from '../backend';
import { checkLoadOptions, outOfRangeError } from '../range';
import { md5 } from './md5';
import { fetchError, responseError, type RequestContext } from './s3-errors';
import type { S3Method, UrlSigner } from './url-signer';
import { parseListObjectsV2 } from './xml';
import { garbageMade } from '../../memory/garbage';
import { readBody, Watchdog } from './watchdog';

export interface S3BackendOptions {
  signer: UrlSigner;
  /** Key prefix inside the bucket ('' = the bucket's root); slashes at either end are ignored. */
  prefix?: string;
  /** For messages, e.g. `s3:https://host/bucket/prefix` (see formatS3Location). */
  location?: string;
  /** Requests this backend handles well at once; restic's default for S3 is 5. */
  connections?: number;
  fetch?: typeof fetch;
  /** ListObjectsV2 `max-keys` (default 1000, S3's maximum). */
  pageSize?: number;
  /** Content-MD5 digest; defaults to the pure-TS one (the Node CLI may pass node:crypto's). */
  md5?: (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;
  /**
   * On a failed fetch, probe with a `no-cors` request to tell a CORS refusal from a network
   * failure. Default: on in browsers (where fetch reports both as the same TypeError).
   */
  detectCors?: boolean;
  /**
   * Move bodies as Blobs: send a Blob of the bytes, and read answers with `blob()` before
   * `arrayBuffer()`. Default: on in browsers, where Chromium moves large ArrayBuffer bodies
   * through the network service many times slower than Blobs, both ways; in Node it makes
   * no difference (figures: bench/README.md).
   */
  blobBodies?: boolean;
  /** Send `If-None-Match: *` with each PUT so existing objects are never overwritten. */
  noOverwrite?: boolean;
  /**
   * A request that makes no progress for this long — no answer yet, or no byte of the answer
   * for this long — is abandoned as a retryable NETWORK error (restic's stuck-request timeout,
   * `--stuck-request-timeout`, 5 minutes there). Default 60 s.
   */
  stuckTimeoutMs?: number;
  /**
   * An upload's progress cannot be watched, so it gets its bytes at this rate on top of the
   * stuck timeout before its answer must start; so does a download read as a Blob (default
   * 64 KiB/s: a 16 MiB pack gets 256 s more).
   */
  minBytesPerSecond?: number;
}

interface Send {
  op: string;
  method: S3Method;
  key: string;
  target: string;
  signal?: AbortSignal;
  query?: Record<string, string>;
  /** Sent and covered by the signature. */
  signed?: Record<string, string>;
  /** Sent, not signed. */
  headers?: Record<string, string>;
  body?: Uint8Array | Blob;
  /** The URL of the latest attempt, set by #send. */
  url?: string;
  /** Bytes expected in the answer's body (presizes the buffer). */
  bytes?: number;
  /** Watches the latest attempt, set by #send; done() once its answer is read or dropped. */
  watchdog?: Watchdog;
}

/** A PUT body made ready by `prepare`: what is sent, and its Content-MD5. */
class S3Body implements PreparedBody {
  readonly prepared = true;
  constructor(
    readonly body: Blob,
    readonly md5: Uint8Array,
    readonly length: number,
  ) {}
}

const isBrowser = (): boolean =>
  typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
  typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';

export class S3Backend implements Backend {
  readonly location: string;
  readonly connections: number;
  readonly #signer: UrlSigner;
  readonly #prefix: string;
  readonly #fetch: typeof fetch;
  readonly #pageSize: number;
  readonly #md5: (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;
  readonly #detectCors: boolean;
  readonly #noOverwrite: boolean;
  readonly #blobBodies: boolean;
  /** Methods that have worked at least once: their CORS rule is fine, so a failure is the network. */
  readonly #worked = new Set<string>();
  /**
   * With Blob bodies (browsers): the Blob and the MD5 of `data`, made at once, so the caller's
   * buffer is free while the PUT (and any retry) sends the Blob. A pack's buffer then takes the
   * next pack during the upload: a saver needs one 16 MiB buffer, not one per upload too.
   */
  readonly prepare?: (data: Uint8Array) => Promise<PreparedBody>;

  constructor(opts: S3BackendOptions) {
    this.#signer = opts.signer;
    const p = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.#prefix = p ? p + '/' : '';
    this.location = opts.location ?? `s3:${this.#prefix}`;
    this.connections = opts.connections ?? 5;
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.#pageSize = opts.pageSize ?? 1000;
    this.#md5 = opts.md5 ?? md5;
    this.#detectCors = opts.detectCors ?? isBrowser();
    this.#noOverwrite = opts.noOverwrite ?? false;
    this.#blobBodies = opts.blobBodies ?? isBrowser();
    if (this.#blobBodies) this.prepare = (data) => this.#prepare(data);
    this.#stuckMs = opts.stuckTimeoutMs ?? 60_000;
    this.#minRate = opts.minBytesPerSecond ?? 64 * 1024;
  }

  readonly #stuckMs: number;
  readonly #minRate: number;

  /** How long `bytes` may take at the floor rate, in ms. */
  #transferMs(bytes: number): number {
    return Math.ceil((bytes / this.#minRate) * 1000);
  }

  #key(h: Handle): string {
    return this.#prefix + objectPath(h);
  }

  async #send(s: Send): Promise<Response> {
    throwIfAborted(s.signal);
    const ctx: RequestContext = { op: s.op, method: s.method, key: s.key, target: s.target };
    const signed = await this.#signer.sign(
      { method: s.method, key: s.key, ...(s.query ? { query: s.query } : {}), ...(s.signed ? { headers: s.signed } : {}) },
      s.signal,
    );
    throwIfAborted(s.signal);
    s.url = signed.url;
    const upload = (s.body instanceof Blob ? s.body.size : s.body?.length) ?? 0;
    s.watchdog?.done();
    const watchdog = new Watchdog(this.#stuckMs, s.signal, this.#stuckMs + this.#transferMs(upload));
    s.watchdog = watchdog;
    const init: RequestInit = {
      method: s.method,
      headers: { ...s.headers, ...s.signed, ...signed.headers },
      signal: watchdog.signal,
      // Every URL is unique; keep the responses out of the browser's HTTP cache.
      cache: 'no-store',
    };
    if (s.body) init.body = this.#blobBodies && !(s.body instanceof Blob) ? new Blob([s.body as Uint8Array<ArrayBuffer>]) : (s.body as BodyInit);
    try {
      const res = await this.#fetch(signed.url, init);
      watchdog.kick();
      this.#worked.add(s.method);
      return res;
    } catch (e) {
      watchdog.done();
      throw fetchError(e, ctx, s.signal, await this.#corsLikely(e, s, signed.url), (globalThis as { location?: { origin?: string } }).location?.origin);
    }
  }

  async #corsLikely(e: unknown, s: Send, url: string): Promise<boolean> {
    if (!this.#detectCors || !(e instanceof TypeError) || s.signal?.aborted || this.#worked.has(s.method)) return false;
    try {
      // An opaque answer to a no-cors request means the server is reachable and answered:
      // the browser refused to hand us the real answer, which is what CORS does.
      await this.#fetch(url, { method: 'HEAD', mode: 'no-cors', cache: 'no-store', signal: s.signal });
      return true;
    } catch {
      return false;
    }
  }

  /** Reads the answer's body under the request's watchdog, then stops watching. */
  async #body(res: Response, s: Send): Promise<Uint8Array> {
    const watchdog = s.watchdog!;
    try {
      const declared = Number(res.headers.get('content-length') ?? NaN);
      const expected = Number.isSafeInteger(declared) && declared >= 0 ? declared : s.bytes;
      let body: Uint8Array;
      if (this.#blobBodies) {
        // A Blob arrives whole: give it its bytes at the floor rate instead of watching chunks.
        watchdog.kick(this.#stuckMs + this.#transferMs(expected ?? 16 * 1024 * 1024));
        body = new Uint8Array(await (await res.blob()).arrayBuffer());
      } else body = await readBody(res.body, watchdog, expected);
      garbageMade(body.length); // a fresh buffer, dropped once its blobs are read
      return body;
    } catch (e) {
      throw fetchError(e, s, s.signal);
    } finally {
      watchdog.done();
    }
  }

  /** Drops an answer's body unread and stops watching the request. */
  async #drop(res: Response, s: Send): Promise<void> {
    s.watchdog?.done();
    await res.body?.cancel().catch(() => {});
  }

  async #fail(res: Response, s: Send): Promise<never> {
    try {
      throw await responseError(res, { op: s.op, method: s.method, key: s.key, target: s.target, expiresAt: urlExpiry(s.url) });
    } finally {
      s.watchdog?.done();
    }
  }

  async #prepare(data: Uint8Array): Promise<S3Body> {
    const digest = await this.#md5(data);
    return new S3Body(new Blob([data as Uint8Array<ArrayBuffer>]), digest, data.length);
  }

  async save(h: Handle, data: SaveData, opts: RequestOptions = {}): Promise<void> {
    throwIfAborted(opts.signal);
    const target = handleString(h);
    if (!(data instanceof Uint8Array) && !(data instanceof S3Body))
      throw new CairnError('INTERNAL', 'a body prepared by another backend reached the S3 backend', { op: 'save', detail: { handle: target } });
    const digest = data instanceof S3Body ? data.md5 : await this.#md5(data);
    const signed: Record<string, string> = { 'content-md5': base64Encode(digest) };
    if (this.#noOverwrite) signed['if-none-match'] = '*';
    const s: Send = {
      op: 'save',
      method: 'PUT',
      key: this.#key(h),
      target,
      signal: opts.signal,
      signed,
      headers: { 'content-type': 'application/octet-stream' },
      body: data instanceof S3Body ? data.body : data,
    };
    const res = await this.#send(s);
    if (res.status === 412 && this.#noOverwrite) {
      await this.#drop(res, s);
      // Content-addressed names: an existing object already holds these bytes. Not so for config.
      if (h.type === 'config') throw new CairnError('ALREADY_EXISTS', 'config already exists', { op: 'save', detail: { handle: target } });
      return;
    }
    if (!res.ok) await this.#fail(res, s);
    await this.#body(res, s);
  }

  async load(h: Handle, opts: LoadOptions = {}): Promise<Uint8Array> {
    checkLoadOptions(h, opts);
    const { offset = 0, length = 0 } = opts;
    const headers: Record<string, string> = {};
    if (offset > 0 || length > 0) headers['range'] = `bytes=${offset}-${length > 0 ? offset + length - 1 : ''}`;
    const s: Send = {
      op: 'load',
      method: 'GET',
      key: this.#key(h),
      target: handleString(h),
      signal: opts.signal,
      headers,
      ...(length > 0 ? { bytes: length } : {}),
    };
    const res = await this.#send(s);
    if (res.status === 416) {
      await this.#drop(res, s);
      const size = totalFromContentRange(res.headers.get('content-range')) ?? (await this.stat(h, opts)).size;
      if (length === 0 && offset === size) return new Uint8Array(0);
      throw outOfRangeError(h, offset, length, size);
    }
    if (!res.ok) await this.#fail(res, s);
    const bytes = await this.#body(res, s);
    if (res.status === 200) {
      // No range asked for, or a server that ignored it: cut the range out here.
      if (!headers['range']) return bytes;
      const end = length > 0 ? offset + length : bytes.length;
      if (offset > bytes.length || end > bytes.length) throw outOfRangeError(h, offset, length, bytes.length);
      return bytes.slice(offset, end);
    }
    if (length > 0 && bytes.length !== length) {
      // A browser hides Content-Range unless the bucket's CORS rule exposes it: ask for the size.
      const size = totalFromContentRange(res.headers.get('content-range')) ?? (await this.stat(h, opts)).size;
      if (offset + length > size) throw outOfRangeError(h, offset, length, size);
      throw new CairnError('NETWORK', `short read of ${s.target}: ${bytes.length} of ${length} bytes`, {
        op: 'load',
        retryable: true,
        detail: { handle: s.target },
      });
    }
    return bytes;
  }

  async stat(h: Handle, opts: RequestOptions = {}): Promise<FileInfo> {
    const s: Send = { op: 'stat', method: 'HEAD', key: this.#key(h), target: handleString(h), signal: opts.signal };
    const res = await this.#send(s);
    if (!res.ok) await this.#fail(res, s);
    await this.#drop(res, s);
    const size = Number(res.headers.get('content-length'));
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new CairnError('BACKEND_IO', `HEAD ${s.target} gave no Content-Length (is Content-Length exposed by CORS?)`, {
        op: 'stat',
        detail: { handle: s.target },
      });
    }
    return { name: h.type === 'config' ? 'config' : h.name, size };
  }

  async remove(h: Handle, opts: RequestOptions = {}): Promise<void> {
    // S3's DELETE succeeds for absent keys too; the Backend contract wants NOT_FOUND.
    await this.stat(h, opts);
    const s: Send = { op: 'remove', method: 'DELETE', key: this.#key(h), target: handleString(h), signal: opts.signal };
    const res = await this.#send(s);
    if (!res.ok) await this.#fail(res, s);
    await this.#drop(res, s);
  }

  async *list(type: FileType, opts: RequestOptions = {}): AsyncIterable<FileInfo> {
    const { signal } = opts;
    throwIfAborted(signal);
    if (type === 'config') {
      const fi = await this.stat({ type, name: '' }, opts).catch((e: unknown) => {
        if (e instanceof CairnError && e.code === 'NOT_FOUND') return undefined;
        throw e;
      });
      if (fi) yield fi;
      return;
    }
    const prefix = `${this.#prefix}${type}/`;
    let token: string | undefined;
    let startAfter: string | undefined;
    for (;;) {
      const query: Record<string, string> = { 'list-type': '2', prefix, 'max-keys': String(this.#pageSize) };
      if (token) query['continuation-token'] = token;
      else if (startAfter) query['start-after'] = startAfter;
      const s: Send = { op: 'list', method: 'GET', key: '', target: type, signal, query };
      const res = await this.#send(s);
      if (!res.ok) await this.#fail(res, s);
      const text = new TextDecoder().decode(await this.#body(res, s));
      let page;
      try {
        page = parseListObjectsV2(text);
      } catch (e) {
        throw new CairnError('BACKEND_IO', `listing ${prefix} returned an unreadable answer: ${(e as Error).message}`, {
          op: 'list',
          cause: e,
          retryable: true,
          detail: { target: type },
        });
      }
      for (const o of page.objects) {
        const name = listedName(type, o.key.slice(prefix.length));
        if (name === undefined) continue;
        yield { name, size: o.size };
        throwIfAborted(signal);
      }
      if (!page.isTruncated) return;
      token = page.nextContinuationToken;
      // A truncated page without a token (some S3 clones): continue after its last key.
      startAfter = page.objects.at(-1)?.key;
      if (!token && !startAfter) throw new CairnError('BACKEND_IO', `listing ${prefix} is truncated but gives no way to continue`, { op: 'list' });
    }
  }

  async close(): Promise<void> {}
}

/** `data/ab/<id>` lists as `<id>`; other types are flat. Anything else in there is not ours. */
function listedName(type: FileType, rel: string): string | undefined {
  const parts = rel.split('/');
  if (type === 'data') return parts.length === 2 && /^[0-9a-f]{2}$/.test(parts[0]!) && parts[1] ? parts[1] : undefined;
  return parts.length === 1 && rel ? rel : undefined;
}

/** When a query-signed URL stops being valid (ms since the epoch), if it says so. */
function urlExpiry(url: string | undefined): number | undefined {
  if (!url) return undefined;
  const q = new URL(url).searchParams;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(q.get('X-Amz-Date') ?? '');
  const expires = Number(q.get('X-Amz-Expires'));
  if (!m || !Number.isFinite(expires)) return undefined;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) + expires * 1000;
}

// The total size from `Content-Range: bytes a-b/SIZE` (206) or `bytes */SIZE` (416).
function totalFromContentRange(v: string | null): number | undefined {
  const m = v ? /\/(\d+)\s*$/.exec(v) : null;
  return m ? Number(m[1]) : undefined;
}
