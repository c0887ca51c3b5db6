// Fills packs — one open packer per blob type, as restic 0.14–0.17 — and uploads finished
// ones with bounded concurrency. A pack is reported through `onPackSaved` only after the
// backend has stored it, so whoever writes the index never lists a pack that is not there
// (restic's write order: packs → index → snapshot).

import type { Key } from '../crypto/keys';
import type { Saver } from '../backend/backend';
import { throwIfAborted } from '../errors';
import { Packer, DEFAULT_PACK_SIZE, type FinishedPack } from '../pack/packer';
import type { BlobType } from '../pack/header';
import type { ID } from '../id';
import type { IndexPack } from '../index/index-file';

export interface PackerManagerOptions {
  key: Key;
  saver: Saver;
  packSize?: number;
  /** Packs being uploaded at once; also bounds memory (each is up to packSize). */
  uploads?: number;
  onPackSaved: (pack: IndexPack, size: number) => void | Promise<void>;
  signal?: AbortSignal;
}

export class PackerManager {
  readonly #opts: PackerManagerOptions;
  readonly #packSize: number;
  readonly #maxUploads: number;
  readonly #packers = new Map<BlobType, Packer>();
  readonly #uploads = new Set<Promise<void>>();
  #failure: unknown;

  constructor(opts: PackerManagerOptions) {
    this.#opts = opts;
    this.#packSize = opts.packSize ?? DEFAULT_PACK_SIZE;
    this.#maxUploads = Math.max(1, opts.uploads ?? 2);
  }

  /** Adds a sealed blob. Resolves once it is in a packer (waits while uploads are saturated). */
  async add(type: BlobType, id: ID, sealed: Uint8Array, uncompressedLength: number): Promise<void> {
    this.#check();
    let p = this.#packers.get(type);
    if (!p) {
      p = new Packer();
      this.#packers.set(type, p);
    }
    p.add(type, id, sealed, uncompressedLength);
    if (p.size >= this.#packSize || p.headerFull()) {
      this.#packers.delete(type);
      await this.#startUpload(p);
    }
  }

  async #startUpload(p: Packer): Promise<void> {
    while (this.#uploads.size >= this.#maxUploads) {
      await Promise.race(this.#uploads);
      this.#check();
    }
    // Fix: the slot is taken synchronously, before the first await. Awaiting p.finish() first
    // let every concurrent add() (file savers share one manager) pass the check above while
    // the set was still small: 8 uploads ran at once with `uploads: 2`.
    const job: Promise<void> = p.finish(this.#opts.key).then((f) => this.#upload(f)).then(
      () => {
        this.#uploads.delete(job);
      },
      (e) => {
        this.#uploads.delete(job);
        this.#failure ??= e;
      },
    );
    this.#uploads.add(job);
  }

  async #upload(f: FinishedPack): Promise<void> {
    throwIfAborted(this.#opts.signal);
    await this.#opts.saver.save({ type: 'data', name: f.id }, f.bytes, { signal: this.#opts.signal });
    await this.#opts.onPackSaved({ id: f.id, blobs: f.blobs }, f.bytes.length);
  }

  #check(): void {
    if (this.#failure !== undefined) throw this.#failure;
    throwIfAborted(this.#opts.signal);
  }

  /** Bytes waiting in open packers. */
  get pending(): number {
    let n = 0;
    for (const p of this.#packers.values()) n += p.size;
    return n;
  }

  /** Finishes the open packers and waits for every upload. */
  async flush(): Promise<void> {
    for (const [type, p] of [...this.#packers]) {
      this.#packers.delete(type);
      if (p.count > 0) await this.#startUpload(p);
    }
    while (this.#uploads.size > 0) await Promise.race(this.#uploads);
    this.#check();
  }
}
