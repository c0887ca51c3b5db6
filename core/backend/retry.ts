// Retries with exponential backoff and full jitter, as a backend decorator (restic's
// internal/backend/retry). Each attempt calls the inner backend afresh, so a presigning
// backend signs a new URL per attempt. Saves are simply repeated: every backend saves
// atomically, so a failed attempt leaves nothing behind that needs removing.

import { CairnError, abortError, isCairnError, throwIfAborted, type ErrorCode } from '../errors';
import {
  handleString,
  preparing,
  type Backend,
  type FileInfo,
  type FileType,
  type Handle,
  type LoadOptions,
  type RequestOptions,
  type SaveData,
} from './backend';

export interface RetryInfo {
  op: 'save' | 'load' | 'stat' | 'list' | 'remove';
  /** `data/ab12…`-style handle, or the file type for `list`. */
  target: string;
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
  error: unknown;
}

export interface RetryOptions {
  /** Total attempts including the first (default 10). */
  maxAttempts?: number;
  /** Backoff cap for the first retry; doubles per attempt (default 500 ms). */
  baseDelayMs?: number;
  /** Upper bound of the backoff before jitter (default 60 s); a server's Retry-After may exceed it. */
  maxDelayMs?: number;
  /** Give up once the next attempt would start later than this after the first (default 15 min). */
  maxElapsedMs?: number;
  /** Which errors are worth retrying (default isRetryableError). NOT_FOUND, ACCESS_DENIED and ABORTED never are. */
  isRetryable?: (e: unknown) => boolean;
  /** Called before each wait, for progress and logs. */
  onRetry?: (info: RetryInfo) => void;
  /** Injected in tests; the default is a timer that rejects with ABORTED when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Uniform in [0, 1), for the jitter. */
  random?: () => number;
}

const NEVER_RETRY: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['NOT_FOUND', 'ACCESS_DENIED', 'ABORTED']);

// Node's socket-level failures (syscall error codes and undici's).
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * The default retry classifier: CairnErrors marked retryable (and NETWORK ones), fetch's
 * network TypeErrors ("Failed to fetch", "fetch failed", "NetworkError…", Safari's "Load
 * failed") and Node socket errors. Aborts and plain programming errors are not retried.
 */
export function isRetryableError(e: unknown): boolean {
  if (e instanceof CairnError) return !NEVER_RETRY.has(e.code) && (e.retryable || e.code === 'NETWORK');
  if (!(e instanceof Error) || e.name === 'AbortError') return false;
  if (e instanceof TypeError && /fetch|network|load failed/i.test(e.message)) return true;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

/** The server's requested wait (the S3 backend puts Retry-After into `detail.retryAfterMs`). */
function retryAfterMs(e: unknown): number {
  const v = e instanceof CairnError ? e.detail['retryAfterMs'] : undefined;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

type Settings = Required<Omit<RetryOptions, 'onRetry'>> & Pick<RetryOptions, 'onRetry'>;

/** One operation's retry budget. `failed()` waits before the next attempt or throws. */
class Attempts {
  readonly #settings: Settings;
  readonly #op: RetryInfo['op'];
  readonly #target: string;
  readonly #signal: AbortSignal | undefined;
  readonly #started: number;
  #attempt = 0;

  constructor(settings: Settings, op: RetryInfo['op'], target: string, signal: AbortSignal | undefined) {
    this.#settings = settings;
    this.#op = op;
    this.#target = target;
    this.#signal = signal;
    this.#started = settings.now();
  }

  async failed(error: unknown): Promise<void> {
    const s = this.#settings;
    const signal = this.#signal;
    if (signal?.aborted) throw abortError(signal);
    this.#attempt++;
    const retryable = !(isCairnError(error) && NEVER_RETRY.has(error.code)) && s.isRetryable(error);
    if (!retryable || this.#attempt >= s.maxAttempts) throw error;
    const cap = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** (this.#attempt - 1));
    const delayMs = Math.max(Math.floor(s.random() * cap), retryAfterMs(error));
    if (s.now() - this.#started + delayMs > s.maxElapsedMs) throw error;
    s.onRetry?.({ op: this.#op, target: this.#target, attempt: this.#attempt, delayMs, error });
    await s.sleep(delayMs, signal);
    throwIfAborted(signal);
  }
}

/** Wraps `inner` so retryable failures are retried with backoff. */
export function withRetry(inner: Backend, options: RetryOptions = {}): Backend {
  const opts: Settings = {
    maxAttempts: options.maxAttempts ?? 10,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 60_000,
    maxElapsedMs: options.maxElapsedMs ?? 15 * 60_000,
    isRetryable: options.isRetryable ?? isRetryableError,
    onRetry: options.onRetry,
    sleep: options.sleep ?? sleep,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
  };

  async function retry<T>(op: RetryInfo['op'], h: Handle, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    // As restic: an already-cancelled request never reaches the backend.
    throwIfAborted(signal);
    const attempts = new Attempts(opts, op, handleString(h), signal);
    for (;;) {
      try {
        return await fn();
      } catch (e) {
        await attempts.failed(e);
      }
    }
  }

  return {
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    // A prepared body is sent again as it is: the caller's buffer may hold the next pack by now.
    save: (h: Handle, data: SaveData, o?: RequestOptions) => retry('save', h, o?.signal, () => inner.save(h, data, o)),
    ...preparing(inner),
    load: (h: Handle, o?: LoadOptions) => retry('load', h, o?.signal, () => inner.load(h, o)),
    stat: (h: Handle, o?: RequestOptions) => retry('stat', h, o?.signal, () => inner.stat(h, o)),
    remove: (h: Handle, o?: RequestOptions) => retry('remove', h, o?.signal, () => inner.remove(h, o)),

    // A broken listing starts over; names already yielded are skipped (as restic does).
    async *list(type: FileType, o?: RequestOptions): AsyncIterable<FileInfo> {
      throwIfAborted(o?.signal);
      const attempts = new Attempts(opts, 'list', type, o?.signal);
      const seen = new Set<string>();
      for (;;) {
        try {
          for await (const fi of inner.list(type, o)) {
            if (seen.has(fi.name)) continue;
            seen.add(fi.name);
            yield fi;
          }
          return;
        } catch (e) {
          await attempts.failed(e);
        }
      }
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
