// A stuck-request watchdog (restic's internal/backend/watchdog_roundtriper.go): a request is
// abandoned when it makes no progress for `timeoutMs` — no answer to the request, or no byte
// of the answer's body — however long it runs while data keeps moving. restic kicks the timer
// on each chunk it uploads too; fetch cannot report upload progress, so an upload gets its
// bytes at a floor rate on top of the timeout before the answer must start.

/** Thrown into fetch (and body reads) when the watchdog fires; fetchError maps it to NETWORK. */
export class StuckRequestError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no progress for ${formatSeconds(timeoutMs)}`);
    this.name = 'TimeoutError';
  }
}

export class Watchdog {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #fired = false;

  /** Starts the clock: the request must make progress within `firstMs` (default `timeoutMs`). */
  constructor(timeoutMs: number, caller?: AbortSignal, firstMs = timeoutMs) {
    this.#timeoutMs = timeoutMs;
    this.#caller = caller;
    this.#onCallerAbort = () => this.#abort(caller?.reason);
    if (caller?.aborted) this.#abort(caller.reason);
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.kick(firstMs);
  }

  /** Aborted when the caller aborts or the watchdog fires. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True when this watchdog, not the caller, stopped the request. */
  get fired(): boolean {
    return this.#fired;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Progress: the request may now stay silent for `ms` (default: the timeout). */
  kick(ms = this.#timeoutMs): void {
    if (this.#controller.signal.aborted) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#fired = true;
      this.#abort(new StuckRequestError(this.#timeoutMs));
    }, ms);
  }

  /** The request is over (answered, read or failed): stop watching. */
  done(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  #abort(reason: unknown): void {
    this.done();
    this.#controller.abort(reason);
  }
}

/** Reads a whole body, kicking `watchdog` on each chunk; `expected` presizes the buffer. */
export async function readBody(body: ReadableStream<Uint8Array> | null, watchdog: Watchdog, expected?: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let out = expected !== undefined && expected > 0 ? new Uint8Array(expected) : undefined;
  let n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      watchdog.kick();
      if (out && n + value.length <= out.length) out.set(value, n);
      else {
        if (out) chunks.push(out.subarray(0, n));
        out = undefined;
        chunks.push(value);
      }
      n += value.length;
    }
  } finally {
    reader.releaseLock();
  }
  if (out) return n === out.length ? out : out.subarray(0, n);
  const all = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

export function formatSeconds(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return ms < 10_000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
