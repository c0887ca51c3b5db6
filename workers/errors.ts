// Errors at the worker boundary. Inside the engine everything throws CairnError (core) or
// EngineFault (engine-only codes); what crosses to the page is a plain EngineError object,
// because comlink turns a thrown Error into a bare {name, message} and would drop the code.

import { CairnError, serializeError } from '../core/errors';
import type { EngineError, EngineErrorCode } from './api';

export class EngineFault extends Error {
  readonly code: EngineErrorCode;
  readonly retryable: boolean;
  readonly detail: Record<string, unknown>;

  constructor(code: EngineErrorCode, message: string, opts: { retryable?: boolean; detail?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'EngineFault';
    this.code = code;
    this.retryable = opts.retryable ?? false;
    this.detail = opts.detail ?? {};
  }
}

export function toEngineError(e: unknown): EngineError {
  if (e instanceof EngineFault) return { code: e.code, message: e.message, retryable: e.retryable, detail: cloneable(e.detail) };
  if (e instanceof CairnError) {
    const s = serializeError(e);
    return { code: s.code, message: s.message, retryable: s.retryable ?? false, detail: cloneable(s.detail) };
  }
  const name = (e as Error)?.name;
  if (name === 'QuotaExceededError') return { code: 'QUOTA_EXCEEDED', message: (e as Error).message, retryable: false };
  if (name === 'NotAllowedError' || name === 'SecurityError') return { code: 'ACCESS_DENIED', message: (e as Error).message, retryable: false };
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), retryable: false };
}

/** Runs an API method; any failure rejects with a plain EngineError. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toEngineError(e);
  }
}

/**
 * `target` as the page calls it: each method runs in `guarded`, so the class behind it throws
 * plain errors and the boundary turns them into EngineError in this one place.
 */
export function guardedMethods<T extends object>(target: T): T {
  return new Proxy(target, {
    get(t, prop) {
      const v: unknown = Reflect.get(t, prop, t);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => guarded(async () => (v as (...a: unknown[]) => unknown).apply(t, args));
    },
  });
}

/** Detail objects may hold causes or handles; keep only what structured clone surely takes. */
function cloneable(detail: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!detail) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    else if (typeof v === 'bigint') out[k] = v.toString();
  }
  return out;
}
