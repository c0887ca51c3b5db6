// Live progress for long operations: counters the engine updates, a rate/ETA estimate, and
// a throttle so listeners (a terminal, a worker → page message) see at most a few updates
// per second.

export interface Counters {
  files: number;
  bytes: number;
}

export interface ProgressSnapshot {
  phase: string;
  done: Counters;
  /** Known totals (grow while a scan is still running; `totalsFinal` says when they stop). */
  total: Counters;
  totalsFinal: boolean;
  elapsedMs: number;
  /** Bytes per second over the last few seconds. */
  bytesPerSec: number;
  /** Seconds left, when totals are final and the rate is known. */
  etaSec?: number;
  currentFiles: string[];
  errors: number;
  /** Operation-specific counters (new/changed/unmodified files, data added …). */
  extra: Record<string, number>;
}

/** Tracks counters and produces throttled snapshots. */
export class ProgressTracker {
  readonly done: Counters = { files: 0, bytes: 0 };
  readonly total: Counters = { files: 0, bytes: 0 };
  readonly extra: Record<string, number> = {};
  readonly current = new Set<string>();
  totalsFinal = false;
  errors = 0;
  phase: string;
  readonly #start = Date.now();
  readonly #samples: { t: number; bytes: number }[] = [];
  readonly #listener: ((p: ProgressSnapshot) => void) | undefined;
  readonly #intervalMs: number;
  #lastEmit = 0;

  constructor(phase: string, listener?: (p: ProgressSnapshot) => void, intervalMs = 250) {
    this.phase = phase;
    this.#listener = listener;
    this.#intervalMs = intervalMs;
  }

  add(key: string, n = 1): void {
    this.extra[key] = (this.extra[key] ?? 0) + n;
  }

  /** Emits if the throttle interval has passed (or always when `force`). */
  tick(force = false): void {
    if (!this.#listener) return;
    const now = Date.now();
    if (!force && now - this.#lastEmit < this.#intervalMs) return;
    this.#lastEmit = now;
    this.#listener(this.snapshot(now));
  }

  snapshot(now = Date.now()): ProgressSnapshot {
    this.#samples.push({ t: now, bytes: this.done.bytes });
    while (this.#samples.length > 2 && now - this.#samples[0]!.t > 5000) this.#samples.shift();
    const first = this.#samples[0]!;
    const dt = (now - first.t) / 1000;
    const elapsed = now - this.#start;
    const bytesPerSec = dt > 0.5 ? (this.done.bytes - first.bytes) / dt : elapsed > 0 ? (this.done.bytes * 1000) / elapsed : 0;
    const left = this.total.bytes - this.done.bytes;
    const etaSec = this.totalsFinal && bytesPerSec > 0 ? Math.max(0, left / bytesPerSec) : undefined;
    return {
      phase: this.phase,
      done: { ...this.done },
      total: { ...this.total },
      totalsFinal: this.totalsFinal,
      elapsedMs: elapsed,
      bytesPerSec,
      etaSec,
      currentFiles: [...this.current].slice(0, 8),
      errors: this.errors,
      extra: { ...this.extra },
    };
  }
}

/** restic 0.14's formatBytes (cmd/restic/format.go): "%.3f GiB" etc., plain bytes up to 1 KiB. */
export function formatBytes(n: number): string {
  if (n > 2 ** 40) return `${fixed3(n / 2 ** 40)} TiB`;
  if (n > 2 ** 30) return `${fixed3(n / 2 ** 30)} GiB`;
  if (n > 2 ** 20) return `${fixed3(n / 2 ** 20)} MiB`;
  if (n > 2 ** 10) return `${fixed3(n / 2 ** 10)} KiB`;
  // Whole bytes: Go prints a uint64 with %d, so a fractional rate is "512 B", never "512.3333 B".
  return `${Math.floor(n)} B`;
}

/**
 * Go's %.3f, which rounds an exact tie to even where toFixed rounds it up: 1088 bytes is
 * 1.0625 KiB, which restic prints as "1.062 KiB" (toFixed alone: "1.063"). (n / 2^k * 1000 is exact for
 * the integers we format, so an exact tie is detectable.)
 */
function fixed3(v: number): string {
  const scaled = v * 1000;
  const floor = Math.floor(scaled);
  if (scaled - floor === 0.5) return ((floor % 2 === 0 ? floor : floor + 1) / 1000).toFixed(3);
  return v.toFixed(3);
}

/** restic's formatSeconds(uint64(d / time.Second)): whole seconds, truncated. */
export function formatDuration(sec: number): string {
  // Truncated, as restic does: 59.6 s is "0:59".
  sec = Math.max(0, Math.floor(sec));
  const h = Math.floor(sec / 3600),
    m = Math.floor((sec % 3600) / 60),
    s = sec % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}
