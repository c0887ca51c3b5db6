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
import type { FileContentReader, FileRef } from './source';

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

export class FileSaver {
  readonly #deps: FileSaverDeps;
  readonly #chunkers: Chunker[] = [];
  /**
   * Reused chunk buffers, one per file being saved at once: the file is read straight into
   * one, the chunker scans the new bytes, and each chunk is hashed and sealed from it in
   * place (hashing and sealing copy what they keep), so no piece or chunk is allocated.
   */
  readonly #buffers: Uint8Array[] = [];
  readonly #smallBuffers: Uint8Array[] = [];

  constructor(deps: FileSaverDeps) {
    this.#deps = deps;
  }

  /** A small buffer filled up (the file is larger than scanned): its bytes move to a big one. */
  #grow(small: Uint8Array, filled: number): Uint8Array {
    const big = this.#buffers.pop() ?? new Uint8Array(MAX_SIZE + PIECE);
    big.set(small.subarray(0, filled));
    this.#smallBuffers.push(small);
    return big;
  }

  async save(job: FileJob, onBytes?: (n: number) => void, signal?: AbortSignal): Promise<FileSaved> {
    const d = this.#deps;
    const chunker = this.#chunkers.pop() ?? new Chunker(d.polynomial);
    // Taken when the first bytes go into it: a small file the reader hands over whole needs none.
    let buf: Uint8Array | undefined;
    const buffer = () =>
      (buf ??= isSmallJob(job) ? (this.#smallBuffers.pop() ?? new Uint8Array(SMALL_BUFFER)) : (this.#buffers.pop() ?? new Uint8Array(MAX_SIZE + PIECE)));
    chunker.reset();
    const out: FileSaved = { content: [], size: 0, blobsNew: 0, bytesNew: 0, bytesStored: 0, changed: false };
    const saveChunk = async (chunk: Uint8Array) => {
      throwIfAborted(signal);
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
      onBytes?.(chunk.length);
    };
    let filled = 0;
    // New bytes buf[from, filled) were just added: cut and save every chunk they complete.
    const scan = async (from: number) => {
      for (;;) {
        const n = chunker.scan(buf!.subarray(from, filled));
        if (n < 0) return;
        const end = from + n;
        await saveChunk(buf!.subarray(0, end));
        buf!.copyWithin(0, end, filled);
        filled -= end;
        from = 0;
      }
    };
    // Bytes read elsewhere: copied into the buffer a piece at a time, each piece scanned.
    const add = async (bytes: Uint8Array) => {
      for (let at = 0; at < bytes.length; at += PIECE) {
        const part = bytes.subarray(at, at + PIECE);
        if (buffer().length - filled < part.length) buf = this.#grow(buffer(), filled);
        buf!.set(part, filled);
        filled += part.length;
        await scan(filled - part.length);
      }
    };
    try {
      if (d.reader.open) {
        const file = await d.reader.open(job.ref, job.size, signal);
        try {
          // A file the reader already holds whole and that cannot hold a cut (the chunker cuts
          // nothing before MIN_SIZE) is one chunk: saved from the reader's bytes, not copied.
          const whole = file.readAll ? await file.readAll() : undefined;
          if (whole && whole.length <= MIN_SIZE) {
            if (whole.length > 0) await saveChunk(whole);
          } else if (whole) await add(whole);
          while (!whole) {
            throwIfAborted(signal);
            if (filled === buffer().length) buf = this.#grow(buffer(), filled);
            const n = await file.readInto(buf!.subarray(filled, filled + Math.min(PIECE, buf!.length - filled)));
            if (n === 0) break;
            filled += n;
            await scan(filled - n);
          }
        } finally {
          await file.close();
        }
      } else {
        for await (const piece of d.reader.read(job.ref, job.size, signal)) await add(piece);
      }
      if (filled > 0) await saveChunk(buf!.subarray(0, filled));
    } catch (e) {
      if (e instanceof CairnError) throw e;
      throw new CairnError('INTERNAL', `saving ${job.path}: ${(e as Error).message}`, { cause: e, detail: { path: job.path } });
    } finally {
      this.#chunkers.push(chunker);
      if (buf) (buf.length === SMALL_BUFFER ? this.#smallBuffers : this.#buffers).push(buf);
    }
    out.changed = out.size !== job.size;
    return out;
  }
}
