// The first request to a repository's backend, made before the retry layer (as restic stats
// the config on the bare backend): a server that refuses the connection, cannot be resolved,
// or accepts the connection and never answers is reported at once with what went wrong,
// instead of after ten backed-off attempts. Only failures that prove a server is there (an
// HTTP error status, a connection broken after it was made) get a few quick retries.
// "Not found" is an answer: the server is there.

import { CairnError, abortError, isCairnError, isNotFound } from '../errors';
import type { Stater } from './backend';
import { formatSeconds } from './s3/watchdog';

/** How long the first answer may take (restic's dial timeout is 30 s; a HEAD answers in ms). */
export const FIRST_CONTACT_MS = 15_000;
const ATTEMPTS = 4;

/** Socket errors that mean no server answered at all (nothing to retry soon). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** True when `e` (or a cause of it) says the connection was never made. */
export function isUnreachable(e: unknown): boolean {
  for (let c = e, depth = 0; c instanceof Error && depth < 6; c = c.cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
    if (/bad port|getaddrinfo/i.test(c.message)) return true;
  }
  return false;
}

export interface FirstContactOptions {
  signal?: AbortSignal;
  /** How long one attempt may wait for an answer (default FIRST_CONTACT_MS). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export async function firstContact(backend: Stater, location: string, opts: FirstContactOptions = {}): Promise<void> {
  const limit = opts.timeoutMs ?? FIRST_CONTACT_MS;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    const timer = timeoutSignal(limit);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
    try {
      await backend.stat({ type: 'config', name: '' }, { signal });
      return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (opts.signal?.aborted) throw abortError(opts.signal);
      const failure = classify(e, timer.signal.aborted, location, limit);
      if (!failure) throw e;
      if (!failure.retryable || attempt >= ATTEMPTS) throw failure;
      await sleep(200 * 2 ** (attempt - 1));
    } finally {
      timer.clear();
    }
  }
}

/** AbortSignal.timeout on setTimeout (which tests can fake), cleared once the attempt is over. */
function timeoutSignal(ms: number): { signal: AbortSignal; clear(): void } {
  const ctl = new AbortController();
  const id = setTimeout(() => ctl.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  return { signal: ctl.signal, clear: () => clearTimeout(id) };
}

/** The error to report (retryable when the server is evidently there), or undefined to rethrow `e` as it is. */
function classify(e: unknown, timedOut: boolean, location: string, limit: number): CairnError | undefined {
  const opts = { op: 'open', cause: e, detail: { location } };
  if (timedOut || (isCairnError(e, 'NETWORK') && e.detail['stuck'])) {
    return new CairnError('NETWORK', `${location} did not answer within ${formatSeconds(limit)}: check the endpoint and that the server is up`, opts);
  }
  if (isCairnError(e, 'NETWORK')) {
    return new CairnError('NETWORK', `cannot reach ${location}: ${e.message}`, { ...opts, retryable: !isUnreachable(e) });
  }
  if (isCairnError(e) && e.retryable) return new CairnError(e.code, e.message, { ...opts, retryable: true });
  return undefined;
}
