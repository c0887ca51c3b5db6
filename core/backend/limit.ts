// A backend decorator that caps requests in flight (restic's internal/backend/sema) with
// core/concurrency's semaphore. Wrap it *inside* withRetry so a request waiting out its
// backoff does not hold a slot: withRetry(withConcurrencyLimit(be, n)).

import { throwIfAborted } from '../errors';
import { Semaphore } from '../concurrency/semaphore';
import { preparing, type Backend, type FileInfo, type FileType, type Handle, type LoadOptions, type RequestOptions, type SaveData } from './backend';

/**
 * Caps save/load/stat/remove in flight at `n` (default: the backend's `connections`).
 * Lock files bypass the cap, as in restic, so refreshing a lock never queues behind
 * uploads and goes stale. `list` is not limited: it is one long request, not many.
 */
export function withConcurrencyLimit(inner: Backend, n: number = inner.connections): Backend {
  const sem = new Semaphore(n);
  async function limited<T>(h: Handle, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    if (h.type === 'locks') {
      throwIfAborted(signal);
      return fn();
    }
    return sem.run(async () => {
      throwIfAborted(signal); // the wait may have been long
      return fn();
    }, signal);
  }

  return {
    location: inner.location,
    connections: n,
    close: () => inner.close(),
    save: (h: Handle, data: SaveData, o?: RequestOptions) => limited(h, o?.signal, () => inner.save(h, data, o)),
    ...preparing(inner),
    load: (h: Handle, o?: LoadOptions) => limited(h, o?.signal, () => inner.load(h, o)),
    stat: (h: Handle, o?: RequestOptions) => limited(h, o?.signal, () => inner.stat(h, o)),
    remove: (h: Handle, o?: RequestOptions) => limited(h, o?.signal, () => inner.remove(h, o)),
    list: (type: FileType, o?: RequestOptions): AsyncIterable<FileInfo> => inner.list(type, o),
  };
}
