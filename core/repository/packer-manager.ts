// Fills packs — one open packer per blob type, as restic 0.14–0.17 — and uploads finished
// ones with bounded concurrency. A pack is reported through `onPackSaved` only after the
// backend has stored it, so whoever writes the index never lists a pack that is not there
// (restic's write order: packs → index → snapshot).
//
// Blobs are sealed straight into their place in the pack (`addWith`); finished packs' buffers
// come back for reuse once stored.

import type { Key } from '../crypto/keys';
import type { Saver } from '../backend/backend';
import { CairnError, throwIfAborted } from '../errors';
import { Packer, DEFAULT_PACK_SIZE, type FinishedPack } from '../pack/packer';
import type { BlobType } from '../pack/header';
import type { ID } from '../id';
import type { SavedPack } from '../index/index-file';

export interface PackerManagerOptions {
  key: Key;
  saver: Saver;
  packSize?: number;
  /** Packs being uploaded at once; also bounds memory (each is up to packSize). */
  uploads?: number;
  /**
   * Pack buffers at most (default: no limit beyond what `uploads` implies). With 1, the next
   * pack waits for the last one's upload to finish and reuses its buffer: right where storing
   * a pack takes milliseconds (OPFS, a local folder), it saves a buffer or two of memory. A
   * buffer is still added when no upload is under way to free one (a pack per blob type).
   */
  buffers?: number;
  /**
   * Start each pack's buffer at this many bytes and let it grow (doubling) as blobs come,
   * instead of taking the whole target size up front: for packs that mostly stay small, as a
   * backup's tree pack (a few KiB to a few MiB, next to a 16 MiB target). The buffer only moves
   * when no blob is being sealed into it.
   */
  growFrom?: number;
  onPackSaved: (pack: SavedPack, size: number) => void | Promise<void>;
  signal?: AbortSignal;
}

/**
 * Room past the target size in each pack buffer, for the last blob's overshoot and the header.
 * A blob that does not fit in what is left starts the next pack instead (restic lets a pack
 * overshoot by a whole blob, up to 8 MiB; sizing every buffer for that cost a third more
 * memory per buffer). Packs still end at or above the target unless the next blob is large.
 */
const SLACK = 256 * 1024;

interface OpenPack {
  packer: Packer;
  /** Blobs still being sealed into this pack. */
  fills: Set<Promise<void>>;
}

export class PackerManager {
  readonly #opts: PackerManagerOptions;
  readonly #packSize: number;
  readonly #maxUploads: number;
  readonly #open = new Map<BlobType, OpenPack>();
  readonly #uploads = new Set<Promise<void>>();
  readonly #maxBuffers: number;
  readonly #free: Uint8Array[] = [];
  /** Pack buffers in use or free (standard size only). */
  #buffers = 0;
  /** Buffers of packs closed for upload (being sealed, waiting for a slot, or uploading): each comes back. */
  #returning = 0;
  /** Adds waiting for a buffer, longest first: handed one that came back, or woken to look again. */
  #bufferWaiters: ((buffer?: Uint8Array) => void)[] = [];
  /** Packs being opened (waiting for a buffer), per type. */
  readonly #opening = new Map<BlobType, Promise<void>>();
  #failure: unknown;

  constructor(opts: PackerManagerOptions) {
    this.#opts = opts;
    this.#packSize = opts.packSize ?? DEFAULT_PACK_SIZE;
    this.#maxUploads = Math.max(1, opts.uploads ?? 2);
    this.#maxBuffers = Math.max(1, opts.buffers ?? Infinity);
  }

  /** Adds a sealed blob (copied into its pack). */
  add(type: BlobType, id: ID, sealed: Uint8Array, uncompressedLength: number): Promise<void> {
    return this.addWith(type, id, sealed.length, uncompressedLength, (dst) => void dst.set(sealed));
  }

  /**
   * Adds a blob of `length` sealed bytes that `fill` writes into its region of the pack.
   * Resolves once it is written (and, when it completed a pack, once an upload slot took
   * that pack). A failing `fill` fails the manager: a pack with a half-written blob is never
   * uploaded.
   */
  async addWith(type: BlobType, id: ID, length: number, uncompressedLength: number, fill: (dst: Uint8Array) => unknown): Promise<void> {
    let open: OpenPack | undefined;
    for (;;) {
      this.#check();
      open = this.#open.get(type);
      if (open && open.packer.count > 0 && !open.packer.fits(length) && this.#opts.growFrom && open.packer.size + length <= this.#packSize) {
        // Room to grow: once nothing is sealed into the buffer, reserve() moves it.
        if (open.fills.size === 0) break;
        await Promise.allSettled([...open.fills]);
        continue;
      }
      if (open && open.packer.count > 0 && !open.packer.fits(length)) {
        this.#close(type);
        await this.#startUpload(open);
        continue;
      }
      if (open) break;
      await (this.#opening.get(type) ?? this.#openPack(type));
    }
    // From here to `fill` nothing awaits: the region is this blob's alone.
    const dst = open.packer.reserve(type, id, length, uncompressedLength);
    const full = open.packer.size >= this.#packSize || open.packer.headerFull();
    if (full) this.#close(type);
    const filling = (async () => {
      await fill(dst);
    })();
    open.fills.add(filling);
    try {
      await filling;
    } catch (e) {
      this.#failure ??= e instanceof CairnError ? e : new CairnError('INTERNAL', `sealing ${type} blob ${id.slice(0, 8)} failed`, { cause: e });
      this.#wakeAll();
      throw this.#failure;
    } finally {
      open.fills.delete(filling);
    }
    if (full) await this.#startUpload(open);
  }

  /** Opens the `type` pack once a buffer is free (concurrent adds wait for the same one). */
  #openPack(type: BlobType): Promise<void> {
    const opening = (async () => {
      try {
        const buffer = await this.#buffer();
        this.#open.set(type, { packer: new Packer(buffer), fills: new Set() });
      } finally {
        this.#opening.delete(type);
      }
    })();
    this.#opening.set(type, opening);
    return opening;
  }

  async #buffer(): Promise<Uint8Array> {
    for (;;) {
      this.#check();
      const free = this.#free.pop();
      if (free) return free;
      // Over the limit only when no closed pack will hand one back (a pack per blob type,
      // each open): a pack that is full but still being sealed counts, not only uploads.
      if (this.#buffers < this.#maxBuffers || this.#returning === 0) {
        this.#buffers++;
        return new Uint8Array(Math.min(this.#opts.growFrom ?? Infinity, this.#packSize + SLACK));
      }
      const handed = await new Promise<Uint8Array | undefined>((resolve) => this.#bufferWaiters.push(resolve));
      if (handed) return handed;
    }
  }

  /** The `type` pack takes no more blobs: its buffer comes back once it is stored. */
  #close(type: BlobType): void {
    this.#open.delete(type);
    this.#returning++;
  }

  /**
   * A closed pack's buffer came back. The longest waiter gets it straight away: left in the
   * free list, an add opening a pack in between could take it, and the waiter, finding none,
   * would make one more (each saver ended up with two 16 MiB buffers where one was asked).
   */
  #bufferReturned(buffer: Uint8Array): void {
    this.#returning--;
    // Only standard buffers are kept, and none over the limit: one that grew past the size
    // (or, with `growFrom`, started smaller) or one made when none could come back goes.
    if (buffer.length === this.#packSize + SLACK && this.#buffers <= this.#maxBuffers) {
      const waiter = this.#bufferWaiters.shift();
      if (waiter) return waiter(buffer);
      if (this.#free.length <= this.#maxUploads) {
        this.#free.push(buffer);
        return;
      }
    }
    this.#buffers--;
    this.#bufferWaiters.shift()?.(); // looks again: it may make one now
  }

  #wakeAll(): void {
    for (const w of this.#bufferWaiters.splice(0)) w();
  }

  async #startUpload(open: OpenPack): Promise<void> {
    while (this.#uploads.size >= this.#maxUploads) {
      await Promise.race(this.#uploads);
      this.#check();
    }
    // The slot is taken synchronously, before the first await, so concurrent adds cannot
    // all pass the check above while the set is still small.
    const job: Promise<void> = (async () => {
      await Promise.all(open.fills);
      this.#check();
      await this.#upload(await open.packer.finish(this.#opts.key));
    })().then(
      () => {
        this.#uploads.delete(job);
      },
      (e) => {
        this.#uploads.delete(job);
        this.#failure ??= e;
        this.#wakeAll();
      },
    );
    this.#uploads.add(job);
  }

  async #upload(f: FinishedPack): Promise<void> {
    throwIfAborted(this.#opts.signal);
    const saver = this.#opts.saver;
    // A saver that copies the bytes into a body of its own anyway (a browser's PUT takes a
    // Blob) makes that copy first, and the buffer takes the next pack during the upload.
    const body = saver.prepare ? await saver.prepare(f.bytes) : f.bytes;
    if (body !== f.bytes) this.#bufferReturned(f.buffer);
    await saver.save({ type: 'data', name: f.id }, body, { signal: this.#opts.signal });
    // Stored: the buffer may be refilled (keep as many as can be in use at once).
    if (body === f.bytes) this.#bufferReturned(f.buffer);
    await this.#opts.onPackSaved({ id: f.id, entries: f.entries }, f.bytes.length);
  }

  #check(): void {
    if (this.#failure !== undefined) throw this.#failure;
    throwIfAborted(this.#opts.signal);
  }

  /** Bytes waiting in open packers. */
  get pending(): number {
    let n = 0;
    for (const o of this.#open.values()) n += o.packer.size;
    return n;
  }

  /** Finishes the open packers and waits for every upload. */
  async flush(): Promise<void> {
    for (const [type, o] of [...this.#open]) {
      if (o.packer.count === 0) {
        this.#open.delete(type);
        continue;
      }
      this.#close(type);
      await this.#startUpload(o);
    }
    while (this.#uploads.size > 0) await Promise.race(this.#uploads);
    this.#check();
  }
}
