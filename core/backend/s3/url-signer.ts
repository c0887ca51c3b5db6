// Where presigned URLs come from. The S3 backend asks a UrlSigner for one URL per request
// attempt and sends it with plain `fetch`; it never sees credentials itself. Two sources:
// localSigner (the keys are here, SigV4 in this process) and endpointSigner (the user's own
// presign endpoint holds the keys; see ./endpoint-signer and PRESIGN-ENDPOINT.md).

import { presignUrl, type Credentials } from './sigv4';

export type S3Method = 'GET' | 'PUT' | 'HEAD' | 'DELETE';

export interface SignRequest {
  method: S3Method;
  /** The full object key inside the bucket (repository prefix included); '' for bucket-level requests (ListObjectsV2). */
  key: string;
  /** Query parameters of the S3 request itself, e.g. `{ 'list-type': '2', prefix: 'repo/data/' }`. */
  query?: Record<string, string>;
  /** Headers the client will send and wants covered by the signature (lower-case names), e.g. `content-md5`. */
  headers?: Record<string, string>;
}

export interface SignedUrl {
  url: string;
  /** Extra headers to send exactly as given (an endpoint may choose header-based auth). */
  headers?: Record<string, string>;
}

export interface UrlSigner {
  sign(req: SignRequest, signal?: AbortSignal): Promise<SignedUrl>;
}

export interface LocalSignerConfig extends Credentials {
  /** Service URL without the bucket, e.g. `https://s3.us-west-004.backblazeb2.com` or `http://127.0.0.1:7480`. */
  endpoint: string;
  region: string;
  bucket: string;
  /**
   * `https://host/bucket/key` (true) or `https://bucket.host/key` (false). Default: virtual-hosted
   * for *.amazonaws.com when the bucket name is a DNS label that TLS certificates cover, else
   * path-style (what S3-compatible servers expect; minio-go's "auto" lookup does the same).
   */
  pathStyle?: boolean;
  /** URL lifetime, default 900 s. A URL only has to be valid when its request starts. */
  expiresSeconds?: number;
  /** Clock, injected in tests. */
  now?: () => Date;
}

export function defaultPathStyle(endpoint: string, bucket: string): boolean {
  const host = new URL(endpoint).hostname;
  const dnsSafe = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket);
  return !(dnsSafe && /(^|\.)amazonaws\.com(\.cn)?$/.test(host));
}

/** Signs URLs here, with keys held in this process (CLI, or a user who pasted keys into the app). */
export function localSigner(config: LocalSignerConfig): UrlSigner {
  const base = new URL(config.endpoint);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`S3 endpoint must be http(s): ${config.endpoint}`);
  if (!config.bucket) throw new TypeError('S3 bucket name is empty');
  const scheme = base.protocol === 'http:' ? 'http' : 'https';
  const pathStyle = config.pathStyle ?? defaultPathStyle(config.endpoint, config.bucket);
  const host = pathStyle ? base.host : `${config.bucket}.${base.host}`;
  const basePath = base.pathname.replace(/\/+$/, '');
  const credentials: Credentials = {
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    sessionToken: config.sessionToken || undefined,
  };
  const expiresSeconds = config.expiresSeconds ?? 900;
  const now = config.now ?? (() => new Date());

  return {
    async sign(req) {
      const path = pathStyle ? `${basePath}/${config.bucket}/${req.key}` : `${basePath}/${req.key}`;
      const url = await presignUrl(
        { method: req.method, host, path, query: req.query, headers: req.headers, credentials, region: config.region, date: now(), expiresSeconds },
        scheme,
      );
      return { url };
    },
  };
}
