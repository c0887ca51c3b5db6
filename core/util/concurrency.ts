// Bounded concurrency helpers: never an unbounded Promise.all over a directory or a list of
// packs (STYLE.md convention 3).

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
