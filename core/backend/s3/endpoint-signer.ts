// A UrlSigner backed by the user's own presign endpoint, so the browser never holds the S3
// secret. The contract is deliberately tiny (full text: ./PRESIGN-ENDPOINT.md):
//
//   POST <endpoint>   Content-Type: application/json
//   { "method": "GET"|"PUT"|"HEAD"|"DELETE", "key": "<full key in the bucket>",
//     "query"?: { "<name>": "<value>" }, "headers"?: { "<lower-case name>": "<value>" } }
//
//   200 { "url": "https://…", "headers"?: { … } }   the URL to send the request to, and any
//                                                  headers to send with it exactly as given
//   401/403 { "error"?: "…" }                      refused: the client reports ACCESS_DENIED
//   other                                          treated as an endpoint failure (5xx/429 retried)
//
// An endpoint that refuses DELETE (except under `locks/`) makes backups append-only.

import { CairnError, abortError } from '../../errors';
import type { SignRequest, SignedUrl, UrlSigner } from './url-signer';

export interface EndpointSignerOptions {
  /** Extra headers for the endpoint itself, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** Send cookies to the endpoint (`credentials: 'include'`), for cookie-authenticated endpoints. */
  withCookies?: boolean;
}

function describe(req: SignRequest): string {
  return `${req.method} ${req.key || '(bucket)'}`;
}

async function refusal(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 200);
}

export function endpointSigner(url: string, fetchFn: typeof fetch = globalThis.fetch.bind(globalThis), opts: EndpointSignerOptions = {}): UrlSigner {
  return {
    async sign(req: SignRequest, signal?: AbortSignal): Promise<SignedUrl> {
      const op = 'presign';
      const detail = { endpoint: url, request: describe(req) };
      let res: Response;
      try {
        res = await fetchFn(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...opts.headers },
          body: JSON.stringify(req),
          credentials: opts.withCookies ? 'include' : 'same-origin',
          signal,
        });
      } catch (e) {
        if (signal?.aborted) throw abortError(signal);
        throw new CairnError('NETWORK', `presign endpoint ${url} is unreachable: ${(e as Error).message}`, { op, cause: e, retryable: true, detail });
      }
      if (res.status === 401 || res.status === 403) {
        const why = await refusal(res);
        throw new CairnError('ACCESS_DENIED', `presign endpoint refused ${describe(req)}${why ? `: ${why}` : ''}`, {
          op,
          detail: { ...detail, status: res.status, reason: 'presign-refused' },
        });
      }
      if (!res.ok) {
        const why = await refusal(res);
        const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
        throw new CairnError('BACKEND_IO', `presign endpoint answered HTTP ${res.status} for ${describe(req)}${why ? `: ${why}` : ''}`, {
          op,
          retryable,
          detail: { ...detail, status: res.status },
        });
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch (e) {
        if (signal?.aborted) throw abortError(signal);
        throw new CairnError('BACKEND_IO', `presign endpoint sent no JSON for ${describe(req)}`, { op, cause: e, detail });
      }
      const { url: signed, headers } = (body ?? {}) as { url?: unknown; headers?: unknown };
      if (typeof signed !== 'string' || !/^https?:\/\//.test(signed)) {
        throw new CairnError('BACKEND_IO', `presign endpoint's answer for ${describe(req)} has no http(s) "url"`, { op, detail });
      }
      if (headers !== undefined && (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string'))) {
        throw new CairnError('BACKEND_IO', `presign endpoint's "headers" for ${describe(req)} must map names to strings`, { op, detail });
      }
      return headers ? { url: signed, headers: headers as Record<string, string> } : { url: signed };
    },
  };
}
