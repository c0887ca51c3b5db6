// Bounded concurrency helpers: never an unbounded Promise.all over a directory or a list of
// packs (docs/architecture.md, conventions 3).

/** Runs `fn` over `items` with at most `limit` in flight; rejects on the first failure. */
export async function mapLimit<T, R>(items: Iterable<T> | AsyncIterable<T>, limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  const running = new Set<Promise<void>>();
  let failed: { e: unknown } | undefined;
  let i = 0;
  for await (const item of items as AsyncIterable<T>) {
    if (failed) break;
    const n = i++;
    const p: Promise<void> = fn(item, n).then(
      (r) => {
        results[n] = r;
        running.delete(p);
      },
      (e) => {
        failed ??= { e };
        running.delete(p);
      },
    );
    running.add(p);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failed) throw failed.e;
  return results;
}

/** A promise with its resolve/reject exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void, reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * Runs `f` in a later task (not a microtask): after every promise continuation and message
 * handler queued now, so work produced by many of them can be sent as one batch. setImmediate
 * where it exists (Node), else a MessageChannel hop (browsers; setTimeout(0) is clamped to
 * 4 ms when nested).
 */
export const macrotask: (f: () => void) => void = (() => {
  const g = globalThis as { setImmediate?: (f: () => void) => unknown };
  if (typeof g.setImmediate === 'function') {
    const si = g.setImmediate;
    return (f: () => void) => void si(f);
  }
  if (typeof MessageChannel === 'function') {
    const queue: (() => void)[] = [];
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      const run = queue.splice(0);
      for (const f of run) f();
    };
    return (f: () => void) => {
      if (queue.push(f) === 1) ch.port2.postMessage(0);
    };
  }
  return (f: () => void) => void setTimeout(f, 0);
})();
