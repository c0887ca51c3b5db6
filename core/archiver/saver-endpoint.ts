// The saver thread's side of the saver protocol (saver-protocol.ts): jobs queue here and are
// saved a few at once — `parallel` large files plus many small ones, which spend most of their
// time waiting (open, read, claim) — while claims, progress and results go back in batches.

import { serializeError } from '../errors';
import type { PackerManager } from '../repository/packer-manager';
import { isSmallJob, type FileJob, type FileSaver } from './file-saver';
import { macrotask } from '../concurrency/concurrency';
import type { FromSaver, JobResult, ToSaver } from './saver-protocol';

export interface SaverEndpointOptions {
  post: (m: FromSaver) => void;
  packs: PackerManager;
  /** Large files saved at once. */
  parallel: number;
  /** Small files (see isSmallJob) saved at once besides those; default 32. */
  smallParallel?: number;
  makeSaver: (claim: (id: string) => Promise<boolean>) => FileSaver;
  /** When finished results go out (default: a macrotask later, so a burst of small files shares one message). */
  later?: (f: () => void) => void;
}

/** Collects items and sends them as one message when `later` runs (default: end of this turn). */
function batcher<T>(send: (items: T[]) => void, later: (f: () => void) => void = macrotask): (item: T) => void {
  let items: T[] = [];
  return (item) => {
    if (items.push(item) === 1) {
      later(() => {
        const out = items;
        items = [];
        send(out);
      });
    }
  };
}

/** How often progress of files still being read goes out (ms); a finished file's is in its result. */
const BYTES_EVERY_MS = 200;

class SaverEndpoint {
  readonly #opts: SaverEndpointOptions;
  readonly #saver: FileSaver;
  readonly #finished: (r: JobResult) => void;
  readonly #ask: (claim: { id: string; resolve: (b: boolean) => void }) => void;
  readonly #claims = new Map<number, (r: boolean[]) => void>();
  #nextClaim = 0;
  readonly #abort = new AbortController();
  readonly #queue: { jobId: number; job: FileJob }[] = [];
  #running = 0;
  #runningSmall = 0;
  readonly #unsent = new Map<number, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(opts: SaverEndpointOptions) {
    this.#opts = opts;
    // Claims go out once per task: files progress in separate I/O callbacks, and a claim per
    // message would make many small files cost a round trip each.
    this.#ask = batcher((b) => {
      const reqId = this.#nextClaim++;
      this.#claims.set(reqId, (results) => b.forEach((x, i) => x.resolve(results[i]!)));
      opts.post({ type: 'claim', reqId, ids: b.map((x) => x.id) });
    });
    this.#saver = opts.makeSaver((id) => new Promise<boolean>((resolve) => this.#ask({ id, resolve })));
    this.#finished = batcher<JobResult>((results) => opts.post({ type: 'done', results }), opts.later);
  }

  readonly handle = (m: ToSaver): void => {
    switch (m.type) {
      case 'jobs':
        this.#queue.push(...m.jobs);
        this.#pump();
        break;
      case 'claimed':
        this.#claims.get(m.reqId)?.(m.results);
        this.#claims.delete(m.reqId);
        break;
      case 'flush':
        this.#opts.packs.flush().then(
          () => this.#opts.post({ type: 'flushed', reqId: m.reqId }),
          (e) => this.#opts.post({ type: 'flushed', reqId: m.reqId, error: serializeError(e) }),
        );
        break;
      case 'abort':
        this.#abort.abort();
        break;
    }
  };

  /** Starts queued jobs while their kind (small or large) has room. */
  #pump(): void {
    const smallParallel = this.#opts.smallParallel ?? 32;
    for (let i = 0; i < this.#queue.length;) {
      const small = isSmallJob(this.#queue[i]!.job);
      if (small ? this.#runningSmall >= smallParallel : this.#running >= this.#opts.parallel) {
        if (this.#running >= this.#opts.parallel && this.#runningSmall >= smallParallel) return;
        i++;
        continue;
      }
      const { jobId, job } = this.#queue.splice(i, 1)[0]!;
      this.#start(jobId, job, small);
    }
  }

  #start(jobId: number, job: FileJob, small: boolean): void {
    if (small) this.#runningSmall++;
    else this.#running++;
    this.#saver
      .save(job, (n) => this.#addBytes(jobId, n), this.#abort.signal)
      .then(
        (result) => this.#finished({ jobId, result }),
        (e) => this.#finished({ jobId, error: serializeError(e) }),
      )
      .finally(() => {
        this.#unsent.delete(jobId);
        if (small) this.#runningSmall--;
        else this.#running--;
        this.#pump();
      });
  }

  #addBytes(jobId: number, n: number): void {
    this.#unsent.set(jobId, (this.#unsent.get(jobId) ?? 0) + n);
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#unsent.size) this.#opts.post({ type: 'bytes', progress: [...this.#unsent] });
      this.#unsent.clear();
    }, BYTES_EVERY_MS);
  }
}

/** The saver thread's side: returns the handler for the coordinator's messages. */
export function saverEndpoint(opts: SaverEndpointOptions): (m: ToSaver) => void {
  return new SaverEndpoint(opts).handle;
}
