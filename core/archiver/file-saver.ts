// Saves one file's content: read → chunk (restic's Rabin chunker) → SHA-256 → ask the
// coordinator whether the blob is new → compress + seal → pack. Runs wherever the bytes are
// read (a worker thread in Node, a Web Worker in browsers, or in-process), so file contents
// never cross a thread boundary. Only IDs, counts and index entries leave.

import { CairnError, throwIfAborted } from '../errors';
import { Chunker, MAX_SIZE, MIN_SIZE } from '../chunker';
import type { Pol } from '../chunker/polynomial';
import type { Key } from '../crypto/keys';
import { hashID, type ID } from '../id';
import { prepareBlob, type CompressionMode } from '../repository/blob-codec';
import { EXTENSION, sealInto } from '../crypto/seal';
import type { PackerManager } from '../repository/packer-manager';
import type { FileContentReader, FileRef, OpenedFile } from './source';

export interface FileJob {
  ref: FileRef;
  path: string;
  /** Size from the directory scan; a different byte count read means the file changed. */
  size: number;
}

export interface FileSaved {
  content: ID[];
  /** Bytes actually read (what the node records). */
  size: number;
  blobsNew: number;
  /** Plain bytes of blobs this file added to the repository. */
  bytesNew: number;
  /** Bytes those blobs take in packs (compressed + sealed). */
  bytesStored: number;
  /** The byte count read differs from the scanned size: the file changed while we read it. */
  changed: boolean;
}

export interface FileSaverDeps {
  key: Key;
  polynomial: Pol;
  version: number;
  compression: CompressionMode;
  packs: PackerManager;
  reader: FileContentReader;
  /** True if the caller should store this data blob (nobody has it or is storing it). */
  claim(id: ID): Promise<boolean>;
}

/** Bytes read at a time. */
const PIECE = 1 << 20;
/** Buffer for a small file: it is read whole (plus the read that finds EOF) without a big one. */
const SMALL_BUFFER = 128 << 10;

/** A file small enough to start in a small buffer (it grows into a big one if the file did). */
export function isSmallJob(job: FileJob): boolean {
  return job.size < SMALL_BUFFER / 2;
}

/** Chunk buffers kept for the next file: big ones (a chunk plus a piece) and small ones. */
class ChunkBuffers {
  readonly #big: Uint8Array[] = [];
  readonly #small: Uint8Array[] = [];

  take(small: boolean): Uint8Array {
    return small ? (this.#small.pop() ?? new Uint8Array(SMALL_BUFFER)) : (this.#big.pop() ?? new Uint8Array(MAX_SIZE + PIECE));
  }

  /** A small buffer filled up (the file is larger than scanned): its bytes move to a big one. */
  grow(small: Uint8Array, filled: number): Uint8Array {
    const big = this.take(false);
    big.set(small.subarray(0, filled));
    this.#small.push(small);
    return big;
  }

  give(buf: Uint8Array): void {
    (buf.length === SMALL_BUFFER ? this.#small : this.#big).push(buf);
  }
}

/**
 * One file being saved: bytes go into its buffer (taken when the first bytes come: a small
 * file the reader hands over whole needs none), the chunker scans each new stretch, and every
 * chunk it completes is hashed, claimed and, when new, sealed into a pack.
 */
class FileCut {
  readonly out: FileSaved = { content: [], size: 0, blobsNew: 0, bytesNew: 0, bytesStored: 0, changed: false };
  readonly #d: FileSaverDeps;
  readonly #chunker: Chunker;
  readonly #buffers: ChunkBuffers;
  readonly #small: boolean;
  /** The file's size as listed. */
  readonly #size: number;
  readonly #onBytes: ((n: number) => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  #buf: Uint8Array | undefined;
  #filled = 0;

  constructor(d: FileSaverDeps, chunker: Chunker, buffers: ChunkBuffers, job: FileJob, onBytes?: (n: number) => void, signal?: AbortSignal) {
    this.#d = d;
    this.#chunker = chunker;
    this.#buffers = buffers;
    this.#small = isSmallJob(job);
    this.#size = job.size;
    this.#onBytes = onBytes;
    this.#signal = signal;
  }

  #buffer(): Uint8Array {
    return (this.#buf ??= this.#buffers.take(this.#small));
  }

  async saveChunk(chunk: Uint8Array): Promise<void> {
    throwIfAborted(this.#signal);
    const d = this.#d;
    const out = this.out;
    const id = await hashID(chunk);
    out.content.push(id);
    out.size += chunk.length;
    if (await d.claim(id)) {
      const blob = prepareBlob('data', chunk, d.version, d.compression);
      const length = blob.payload.length + EXTENSION;
      await d.packs.addWith('data', id, length, blob.uncompressedLength, (dst) => sealInto(d.key, blob.payload, dst));
      out.blobsNew++;
      out.bytesNew += chunk.length;
      out.bytesStored += length;
    }
    this.#onBytes?.(chunk.length);
  }

  /** New bytes buf[from, filled) were just added: cuts and saves every chunk they complete. */
  async #scan(from: number): Promise<void> {
    const buf = this.#buf!;
    for (;;) {
      const n = this.#chunker.scan(buf.subarray(from, this.#filled));
      if (n < 0) return;
      const end = from + n;
      await this.saveChunk(buf.subarray(0, end));
      buf.copyWithin(0, end, this.#filled);
      this.#filled -= end;
      from = 0;
    }
  }

  /** Bytes read elsewhere: copied into the buffer a piece at a time, each piece scanned. */
  async add(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length; at += PIECE) {
      const part = bytes.subarray(at, at + PIECE);
      if (this.#buffer().length - this.#filled < part.length) this.#buf = this.#buffers.grow(this.#buffer(), this.#filled);
      this.#buf!.set(part, this.#filled);
      this.#filled += part.length;
      await this.#scan(this.#filled - part.length);
    }
  }

  /** Reads an opened file into the buffer to its end. */
  async readFrom(file: OpenedFile): Promise<void> {
    // A file the reader already holds whole and that cannot hold a cut (the chunker cuts
    // nothing before MIN_SIZE) is one chunk: saved from the reader's bytes, not copied.
    const whole = file.readAll ? await file.readAll() : undefined;
    if (whole && whole.length <= MIN_SIZE) return whole.length > 0 ? this.saveChunk(whole) : undefined;
    if (whole) return this.add(whole);
    for (;;) {
      throwIfAborted(this.#signal);
      if (this.#filled === this.#buffer().length) this.#buf = this.#buffers.grow(this.#buffer(), this.#filled);
      const buf = this.#buf!;
      const want = Math.min(PIECE, buf.length - this.#filled);
      const n = await file.readInto(buf.subarray(this.#filled, this.#filled + want));
      if (n === 0) return;
      this.#filled += n;
      await this.#scan(this.#filled - n);
      // Ended short where the listing said it ends: no read only to find the end (one per file).
      // Bytes read so far are those saved in chunks plus those still in the buffer.
      if (file.shortReadEnds && n < want && this.out.size + this.#filled === this.#size) return;
    }
  }

  /** The end of the file: what is left is the last chunk. */
  async end(): Promise<void> {
    if (this.#filled > 0) await this.saveChunk(this.#buf!.subarray(0, this.#filled));
  }

  release(): void {
    if (this.#buf) this.#buffers.give(this.#buf);
    this.#buf = undefined;
  }
}

export class FileSaver {
  readonly #deps: FileSaverDeps;
  readonly #chunkers: Chunker[] = [];
  /**
   * Reused chunk buffers, one per file being saved at once: the file is read straight into
   * one, the chunker scans the new bytes, and each chunk is hashed and sealed from it in
   * place (hashing and sealing copy what they keep), so no piece or chunk is allocated.
   */
  readonly #buffers = new ChunkBuffers();

  constructor(deps: FileSaverDeps) {
    this.#deps = deps;
  }

  async save(job: FileJob, onBytes?: (n: number) => void, signal?: AbortSignal): Promise<FileSaved> {
    const d = this.#deps;
    const chunker = this.#chunkers.pop() ?? new Chunker(d.polynomial);
    chunker.reset();
    const cut = new FileCut(d, chunker, this.#buffers, job, onBytes, signal);
    try {
      if (d.reader.open) {
        const file = await d.reader.open(job.ref, job.size, signal);
        try {
          await cut.readFrom(file);
        } finally {
          await file.close();
        }
      } else {
        for await (const piece of d.reader.read(job.ref, job.size, signal)) await cut.add(piece);
      }
      await cut.end();
    } catch (e) {
      if (e instanceof CairnError) throw e;
      throw new CairnError('INTERNAL', `saving ${job.path}: ${(e as Error).message}`, { cause: e, detail: { path: job.path } });
    } finally {
      this.#chunkers.push(chunker);
      cut.release();
    }
    cut.out.changed = cut.out.size !== job.size;
    return cut.out;
  }
}
