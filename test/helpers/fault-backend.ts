// A fault-injecting backend decorator, for tests only: fails a seeded share of calls with
// retryable errors, breaks transfers off after some bytes, and delays calls. Seeded, so a
// failing test fails the same way every run.

import { CairnError, throwIfAborted } from '../../core/errors';
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
} from '../../core/backend/backend';

export type BackendOp = 'save' | 'load' | 'stat' | 'list' | 'remove';

export interface FaultOptions {
  /** Seed for the fault decisions (default 1). */
  seed?: number;
  /** Share of calls (0…1) that fail. */
  failRate?: number;
  /** The first N affected calls fail whatever the rate (for scripted scenarios). */
  failFirst?: number;
  /** Which operations may fail or be delayed (default: all). */
  ops?: readonly BackendOp[];
  /**
   * How a failing `load`/`save` fails. Unset: before the inner backend is called. Set to N,
   * the transfer breaks off after N bytes: a load of more than N bytes fails after reading
   * (one of at most N bytes succeeds); a save of more than N bytes fails with nothing stored
   * (an atomic upload that broke off), one of at most N bytes is stored and *then* fails, like
   * a PUT whose response was lost.
   */
  failAfterBytes?: number;
  /** A failing `list` yields this many entries before it breaks (default 0). */
  failAfterItems?: number;
  /** Delay before each affected call, in ms (default 0). */
  delayMs?: number;
  /** How to wait for `delayMs` (default: a real timer). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The error a failing call throws (default: a retryable NETWORK CairnError). */
  makeError?: (op: BackendOp, h: Handle | FileType) => unknown;
}

export interface FaultStats {
  calls: number;
  failures: number;
}

export type FaultyBackend = Backend & { readonly faults: FaultStats };

/** Wraps `inner` so that a seeded share of calls fail. */
export function withFaults(inner: Backend, opts: FaultOptions = {}): FaultyBackend {
  const random = seededRandom(opts.seed ?? 1);
  const ops = new Set<BackendOp>(opts.ops ?? ['save', 'load', 'stat', 'list', 'remove']);
  const stats: FaultStats = { calls: 0, failures: 0 };
  const makeError = opts.makeError ?? defaultError;

  // Decides, in call order, whether this call fails; waits out the delay first.
  async function enter(op: BackendOp, signal?: AbortSignal): Promise<boolean> {
    if (!ops.has(op)) return false;
    stats.calls++;
    if (opts.delayMs) await (opts.sleep ?? abortableSleep)(opts.delayMs, signal);
    throwIfAborted(signal);
    const roll = random(); // drawn on every call, so failFirst does not shift the seeded pattern
    return stats.calls <= (opts.failFirst ?? 0) || roll < (opts.failRate ?? 0);
  }

  function fault(op: BackendOp, target: Handle | FileType): unknown {
    stats.failures++;
    return makeError(op, target);
  }

  return {
    location: inner.location,
    connections: inner.connections,
    faults: stats,
    close: () => inner.close(),

    ...preparing(inner),

    async save(h: Handle, data: SaveData, o?: RequestOptions): Promise<void> {
      if (!(await enter('save', o?.signal))) return inner.save(h, data, o);
      const after = opts.failAfterBytes;
      if (after !== undefined && data.length <= after) await inner.save(h, data, o);
      throw fault('save', h);
    },

    async load(h: Handle, o?: LoadOptions): Promise<Uint8Array> {
      if (!(await enter('load', o?.signal))) return inner.load(h, o);
      const after = opts.failAfterBytes;
      if (after === undefined) throw fault('load', h);
      const data = await inner.load(h, o);
      if (data.length <= after) return data;
      throw fault('load', h);
    },

    async stat(h: Handle, o?: RequestOptions): Promise<FileInfo> {
      if (await enter('stat', o?.signal)) throw fault('stat', h);
      return inner.stat(h, o);
    },

    async *list(type: FileType, o?: RequestOptions): AsyncIterable<FileInfo> {
      const fail = await enter('list', o?.signal);
      let yielded = 0;
      for await (const fi of inner.list(type, o)) {
        if (fail && yielded >= (opts.failAfterItems ?? 0)) break;
        yield fi;
        yielded++;
      }
      if (fail) throw fault('list', type);
    },

    async remove(h: Handle, o?: RequestOptions): Promise<void> {
      if (await enter('remove', o?.signal)) throw fault('remove', h);
      return inner.remove(h, o);
    },
  };
}

function defaultError(op: BackendOp, target: Handle | FileType): CairnError {
  const what = typeof target === 'string' ? target : handleString(target);
  return new CairnError('NETWORK', `injected fault in ${op} ${what}`, { op, retryable: true, detail: { injected: true } });
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** mulberry32: a tiny seeded PRNG giving floats in [0, 1). Not for cryptography. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` deterministic pseudo-random bytes for test data. */
export function seededBytes(seed: number, n: number): Uint8Array {
  const random = seededRandom(seed);
  const out = new Uint8Array(n);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const v = (random() * 4294967296) >>> 0;
    out[i] = v & 0xff;
    out[i + 1] = (v >>> 8) & 0xff;
    out[i + 2] = (v >>> 16) & 0xff;
    out[i + 3] = v >>> 24;
  }
  for (; i < n; i++) out[i] = (random() * 256) >>> 0;
  return out;
}
