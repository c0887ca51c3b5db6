// Saves one file's content: read → chunk (restic's Rabin chunker) → SHA-256 → ask the
// coordinator whether the blob is new → compress + seal → pack. Runs wherever the bytes are
// read (a worker thread in Node, a Web Worker in browsers, or in-process), so file contents
// never cross a thread boundary. Only IDs, counts and index entries leave.

import { CairnError, throwIfAborted } from '../errors';
import { Chunker, chunkStream } from '../chunker';
import type { Pol } from '../chunker/polynomial';
import type { Key } from '../crypto/keys';
import { hashID, type ID } from '../id';
import { encodeBlob, type CompressionMode } from '../repository/blob-codec';
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

export class FileSaver {
  readonly #deps: FileSaverDeps;
  readonly #chunkers: Chunker[] = [];

  constructor(deps: FileSaverDeps) {
    this.#deps = deps;
  }

  async save(job: FileJob, onBytes?: (n: number) => void, signal?: AbortSignal): Promise<FileSaved> {
    const d = this.#deps;
    const chunker = this.#chunkers.pop() ?? new Chunker(d.polynomial);
    chunker.reset();
    const out: FileSaved = { content: [], size: 0, blobsNew: 0, bytesNew: 0, bytesStored: 0, changed: false };
    try {
      for await (const chunk of chunkStream(chunker, d.reader.read(job.ref, job.size, signal))) {
        throwIfAborted(signal);
        const id = await hashID(chunk);
        out.content.push(id);
        out.size += chunk.length;
        if (await d.claim(id)) {
          const blob = await encodeBlob(d.key, 'data', chunk, d.version, d.compression);
          await d.packs.add('data', id, blob.sealed, blob.uncompressedLength);
          out.blobsNew++;
          out.bytesNew += chunk.length;
          out.bytesStored += blob.sealed.length;
        }
        onBytes?.(chunk.length);
      }
    } catch (e) {
      if (e instanceof CairnError) throw e;
      throw new CairnError('INTERNAL', `saving ${job.path}: ${(e as Error).message}`, { cause: e, detail: { path: job.path } });
    } finally {
      this.#chunkers.push(chunker);
    }
    out.changed = out.size !== job.size;
    return out;
  }
}
