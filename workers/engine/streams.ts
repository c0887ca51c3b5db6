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
  /**
   * Small pieces gather here until it is full or a large piece comes; the consumer takes it
   * then (a view of its start: the buffer is the consumer's from then on, a new one follows).
   * Merging each small piece into a fresh, larger copy of the last one instead copied a
   * 256 KiB chunk of many small files ~18 times over.
   */
  #gather: Uint8Array | undefined;
  #gathered = 0;
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
    if (chunk.length < 64 << 10 && chunk.length <= this.#coalesce) {
      if (this.#gathered + chunk.length > this.#coalesce) this.#flush();
      this.#gather ??= new Uint8Array(this.#coalesce);
      this.#gather.set(chunk, this.#gathered);
      this.#gathered += chunk.length;
      if (this.#gathered === this.#coalesce) this.#flush();
    } else {
      this.#flush();
      this.#chunks.push(chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : chunk.slice());
    }
    this.#bytes += chunk.length;
    this.#wakeConsumer?.();
    while (this.#bytes >= this.#high && this.#error === undefined) await new Promise<void>((r) => (this.#wakeProducer = r));
    if (this.#error !== undefined) throw this.#error;
  }

  /**
   * Hands what was gathered to the consumer's side: the buffer itself when at least half full,
   * else a copy of its bytes, and the buffer stays for more. A view goes to the service
   * worker with its whole buffer, so handing over mostly empty buffers would move more memory
   * than data.
   */
  #flush(): void {
    if (!this.#gather || this.#gathered === 0) return;
    if (this.#gathered * 2 < this.#coalesce) {
      this.#chunks.push(this.#gather.slice(0, this.#gathered));
    } else {
      this.#chunks.push(this.#gather.subarray(0, this.#gathered));
      this.#gather = undefined;
    }
    this.#gathered = 0;
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
    this.#gather = undefined;
    this.#gathered = 0;
    this.#bytes = 0;
    this.#wakeProducer?.();
  }

  /**
   * Every piece queued, up to `max` bytes (at least one piece), waiting for one if none is;
   * an empty list at the end; throws the producer's error. A consumer that takes what is there
   * per round trip, rather than a piece, lets the producer run ahead less often into the
   * high-water mark while the consumer's next request is under way.
   */
  async take(max = 8 << 20): Promise<Uint8Array[]> {
    const first = await this.next();
    if (!first) return [];
    const out = [first];
    let n = first.length;
    if (this.#chunks.length === 0) this.#flush();
    while (this.#chunks.length > 0 && n + this.#chunks[0]!.length <= max) {
      const c = this.#chunks.shift()!;
      this.#bytes -= c.length;
      n += c.length;
      out.push(c);
      if (this.#chunks.length === 0) this.#flush();
    }
    if (this.#bytes < this.#high) this.#wakeProducer?.();
    return out;
  }

  /** The next piece, or undefined at the end; throws the producer's error. */
  async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      // Nothing else queued: what was gathered goes now rather than wait for more.
      if (this.#chunks.length === 0) this.#flush();
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
