// A byte queue between a producer that pushes (the ZIP writer) and a consumer that pulls (the
// service worker's response stream). push() waits while `highWater` bytes are queued, so a
// slow download slows the restore instead of filling memory; small pieces (ZIP headers) are
// coalesced so each message carries a useful amount.

import { CairnError } from '../../core/errors';

export class ByteQueue {
  readonly #high: number;
  readonly #coalesce: number;
  #chunks: Uint8Array[] = [];
  #bytes = 0;
  #ended = false;
  #error: unknown;
  #wakeConsumer: (() => void) | undefined;
  #wakeProducer: (() => void) | undefined;

  constructor(highWater = 4 << 20, coalesce = 256 << 10) {
    this.#high = highWater;
    this.#coalesce = coalesce;
  }

  async push(chunk: Uint8Array): Promise<void> {
    if (this.#error !== undefined) throw this.#error;
    if (chunk.length === 0) return;
    const last = this.#chunks[this.#chunks.length - 1];
    if (last && chunk.length < 64 << 10 && last.length + chunk.length <= this.#coalesce) {
      const merged = new Uint8Array(last.length + chunk.length);
      merged.set(last);
      merged.set(chunk, last.length);
      this.#chunks[this.#chunks.length - 1] = merged;
    } else this.#chunks.push(chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice());
    this.#bytes += chunk.length;
    this.#wakeConsumer?.();
    while (this.#bytes >= this.#high && this.#error === undefined) await new Promise<void>((r) => (this.#wakeProducer = r));
    if (this.#error !== undefined) throw this.#error;
  }

  end(error?: unknown): void {
    this.#ended = true;
    if (error !== undefined) this.#error ??= error;
    this.#wakeConsumer?.();
    this.#wakeProducer?.();
  }

  /** The consumer went away: the producer's next push fails. */
  cancel(): void {
    this.#error ??= new CairnError('ABORTED', 'download cancelled');
    this.#chunks = [];
    this.#bytes = 0;
    this.#wakeProducer?.();
  }

  /** The next piece, or undefined at the end; throws the producer's error. */
  async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      const c = this.#chunks.shift();
      if (c) {
        this.#bytes -= c.length;
        if (this.#bytes < this.#high) this.#wakeProducer?.();
        return c;
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#ended) return undefined;
      await new Promise<void>((r) => (this.#wakeConsumer = r));
    }
  }
}
