// S3 answers and fetch failures as coded CairnErrors: what the caller can branch on (code,
// retryable) and a message naming the likely fix. Codes per
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html; radosgw and B2 use
// the same names. HEAD answers carry no body, so those are judged by status alone.

import { CairnError, abortError } from '../../errors';
import { parseS3Error } from './xml';
import { StuckRequestError } from './watchdog';

export interface RequestContext {
  /** Backend operation: save, load, stat, list, remove. */
  op: string;
  method: string;
  /** Object key (or the listed prefix). */
  key: string;
  /** `data/ab12…`-style handle or file type, for messages and detail. */
  target: string;
  /** When the presigned URL expired by our clock (servers such as radosgw do not say why they refuse). */
  expiresAt?: number;
}

const CREDENTIALS_HINT = "check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or the presign endpoint's keys)";

/** Milliseconds from a Retry-After header (delta-seconds or an HTTP date); undefined if absent or bad. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function accessDeniedFix(code: string | undefined, message: string | undefined, ctx: RequestContext, now: number): string {
  switch (code) {
    case 'SignatureDoesNotMatch':
      return `the signature does not match: the secret access key is wrong, or the region or request was altered; ${CREDENTIALS_HINT}`;
    case 'InvalidAccessKeyId':
      return 'the server does not know this access key ID; check AWS_ACCESS_KEY_ID';
    case 'RequestTimeTooSkewed':
      return "the computer's clock is too far from the server's; fix the clock";
    case 'ExpiredToken':
    case 'TokenRefreshRequired':
    case 'InvalidToken':
      return 'the session token expired or is invalid; get fresh credentials (AWS_SESSION_TOKEN)';
    case 'AuthorizationQueryParametersError':
      return `the presigned URL is malformed: ${message ?? 'bad X-Amz-* parameters'}`;
    case 'AllAccessDisabled':
      return 'all access to this bucket has been disabled by its owner';
  }
  if (/expired/i.test(message ?? '') || (ctx.expiresAt !== undefined && now >= ctx.expiresAt)) {
    return "the presigned URL expired before it was used; check the computer's clock (or a slow presign endpoint)";
  }
  if (code === 'AccessDenied') {
    return `these credentials may not ${ctx.method} here (check the key's permissions or the bucket policy), or the URL had expired (check the computer's clock)`;
  }
  return `wrong secret key, an expired or altered URL, or missing permission; ${CREDENTIALS_HINT} and the computer's clock`;
}

/** Turns a non-success S3 answer into a CairnError. Reads (and so consumes) the body. */
export async function responseError(res: Response, ctx: RequestContext, now = Date.now()): Promise<CairnError> {
  const text = ctx.method === 'HEAD' ? '' : await res.text().catch(() => '');
  const { code, message } = parseS3Error(text);
  const status = res.status;
  const where = `${ctx.method} ${ctx.target}`;
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  const detail: Record<string, unknown> = { status, target: ctx.target, key: ctx.key, ...(code ? { s3Code: code } : {}) };
  if (retryAfterMs !== undefined) detail['retryAfterMs'] = retryAfterMs;
  // AWS names the bucket's region when a request was signed for another one.
  const region = /expecting '([a-z0-9-]+)'/.exec(message ?? '')?.[1];
  const regionHint = region
    ? `; the bucket is in ${region}: set AWS_DEFAULT_REGION=${region}`
    : code === 'PermanentRedirect'
      ? "; use the bucket's regional endpoint and region"
      : '';
  const said = (message ? ` (${code ?? status}: ${message})` : code ? ` (${code})` : '') + regionHint;
  const opts = { op: ctx.op, detail };

  if (code === 'NoSuchBucket') {
    return new CairnError('NO_SUCH_BUCKET', `the bucket does not exist${said}; check the bucket name, endpoint and region`, opts);
  }
  if (status === 404) return new CairnError('NOT_FOUND', `${ctx.target} does not exist`, opts);
  if (code === 'QuotaExceeded' || (status === 403 && /cap exceeded|quota/i.test(message ?? ''))) {
    return new CairnError('QUOTA_EXCEEDED', `the bucket's storage quota is used up${said}`, opts);
  }
  const authCodes = ['ExpiredToken', 'InvalidToken', 'TokenRefreshRequired', 'AuthorizationQueryParametersError', 'RequestTimeTooSkewed'];
  if (status === 401 || status === 403 || (code !== undefined && authCodes.includes(code))) {
    detail['reason'] = code ?? 'forbidden';
    return new CairnError('ACCESS_DENIED', `access denied for ${where}: ${accessDeniedFix(code, message, ctx, now)}${said}`, opts);
  }
  const transient =
    status >= 500 ||
    status === 408 ||
    status === 429 ||
    code === 'SlowDown' ||
    code === 'RequestTimeout' ||
    code === 'BadDigest' || // the body was damaged on its way: sending it again can help
    code === 'IncompleteBody' ||
    code === 'OperationAborted';
  return new CairnError('BACKEND_IO', `${where} failed with HTTP ${status}${said}`, { ...opts, retryable: transient });
}

/**
 * The error for a fetch that produced no response. An abort is ABORTED; otherwise NETWORK
 * (retryable), or CORS_BLOCKED when `corsLikely` says the server is reachable yet the
 * browser withheld the answer.
 */
export function fetchError(e: unknown, ctx: RequestContext, signal: AbortSignal | undefined, corsLikely = false, origin?: string): CairnError {
  if (signal?.aborted) return abortError(signal);
  const detail = { target: ctx.target, key: ctx.key };
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) {
    // Not the caller's cancellation: the request's own watchdog (a stalled connection).
    const why = e instanceof StuckRequestError ? ` (${e.message})` : '';
    return new CairnError('NETWORK', `${ctx.method} ${ctx.target} timed out${why}`, {
      op: ctx.op,
      cause: e,
      retryable: true,
      detail: { ...detail, stuck: true },
    });
  }
  const why = failureText(e);
  if (corsLikely) {
    return new CairnError(
      'CORS_BLOCKED',
      `the browser blocked ${ctx.method} ${ctx.target}: the bucket's CORS rule must allow origin ${origin ?? '(this app)'}, ` +
        'methods GET PUT HEAD DELETE, headers *, and expose ETag and Content-Range',
      { op: ctx.op, cause: e, detail: { ...detail, origin } },
    );
  }
  return new CairnError('NETWORK', `${ctx.method} ${ctx.target} did not get through: ${why}`, { op: ctx.op, cause: e, retryable: true, detail });
}

/** A failed fetch in words: Node's "fetch failed" says why only in its cause (connect ECONNREFUSED …). */
function failureText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return cause && !e.message.includes(cause) ? `${e.message} (${cause})` : e.message;
}
