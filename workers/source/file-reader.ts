// Reads file contents in a file-saver worker: a File (taken while listing a picked folder), a
// file of the page's webkitdirectory list (asked for by index, ./file-server.ts), or a
// FileSystemFileHandle (a file read afresh after it changed).
//
// What a read costs in Chromium is mostly the browser's file plumbing, not the bytes: each
// read is a request to the browser process and a data pipe set up for it (figures:
// bench/README.md):
// - small files: one request for many is a fraction of the cost of one each, so files up to
//   256 KiB opened in the same task are read together as one Blob (`readSmall`).
// - large files: Blob.stream()'s default reader allocates a fresh ArrayBuffer for every piece,
//   and faulting it in is most of the cost; a BYOB reader fills one reused buffer instead.
//   BYOB takes the buffer it fills (the read detaches it), so pieces land in a pooled bounce
//   buffer and are copied out, which costs far less than the faults.
// Where Blob.stream() has no BYOB reader (older engines), its default reader serves.

import { CairnError } from '../../core/errors';
import type { FileContentReader, FileRef, OpenedFile } from '../../core/archiver/source';
import { macrotask } from '../../core/concurrency/concurrency';
import { isServedRef } from './file-server';
import { filesMade } from './file-garbage';
import { garbageMade } from '../../core/memory/garbage';

function readError(ref: FileRef, e: unknown): CairnError {
  const name = (e as Error)?.name;
  const what = ref instanceof File ? ref.name : ((ref as FileSystemFileHandle)?.name ?? 'file');
  const why =
    name === 'NotFoundError'
      ? 'vanished before it could be read'
      : name === 'NotAllowedError' || name === 'SecurityError'
        ? 'permission denied'
        : name === 'NotReadableError'
          ? 'cannot be read (changed or locked since it was picked)'
          : ((e as Error)?.message ?? String(e));
  return new CairnError('SOURCE_READ', `${what}: ${why}`, { cause: e, detail: { domError: name } });
}

/** Where this worker gets the Files of a served list (see ./file-server.ts), if it has one. */
let served: ((index: number) => Promise<File>) | undefined;

export function useFileServer(get: ((index: number) => Promise<File>) | undefined): void {
  served = get;
}

async function open(ref: FileRef): Promise<Blob> {
  if (ref instanceof Blob) return ref;
  if (isServedRef(ref)) {
    if (!served) throw new CairnError('INTERNAL', 'a file of the picked list, but no connection to the page that holds it');
    return served(ref.served);
  }
  const handle = ref as FileSystemFileHandle;
  if (typeof handle?.getFile !== 'function') throw new CairnError('INTERNAL', 'file reference is neither a File nor a FileSystemFileHandle');
  return handle.getFile();
}

/** Files up to this size are read whole, together with the others opened in the same task. */
const SMALL_FILE = 256 * 1024;

/** Small files read together: at most this many, and about this many bytes, per request. */
const BATCH_FILES = 64;
const BATCH_BYTES = 4 << 20;

interface SmallRead {
  blob: Blob;
  resolve: (b: Uint8Array) => void;
  reject: (e: unknown) => void;
}

/**
 * Blobs and streams being read, held from a root until done. Chromium 156 lets the garbage
 * collector take a Blob.stream() whose only reference is its pending BYOB read, and that read
 * then never settles: 1 backup in 4 hung in the cancel-then-resume e2e test, 0 in 20 held.
 */
const held = new Set<Blob | ReadableStream<Uint8Array>>();

let batch: SmallRead[] = [];
let batchBytes = 0;

/** A small file's bytes, read with the others opened in this task (one request for all). */
function readSmall(blob: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (batch.push({ blob, resolve, reject }) === 1) macrotask(flushSmall);
    batchBytes += blob.size;
    if (batch.length >= BATCH_FILES || batchBytes >= BATCH_BYTES) flushSmall();
  });
}

function flushSmall(): void {
  const reads = batch;
  batch = [];
  batchBytes = 0;
  if (reads.length) void readBatch(reads);
}

function readAlone(r: SmallRead): void {
  r.blob.arrayBuffer().then((b) => (garbageMade(b.byteLength), r.resolve(new Uint8Array(b))), r.reject);
}

async function readBatch(reads: SmallRead[]): Promise<void> {
  if (reads.length === 1) return readAlone(reads[0]!);
  let all: ArrayBuffer;
  const joined = new Blob(reads.map((r) => r.blob));
  held.add(joined);
  try {
    all = await joined.arrayBuffer();
  } catch {
    // One of them changed or vanished since it was listed: read each alone, so each file
    // gets its own bytes or its own error.
    return reads.forEach(readAlone);
  } finally {
    held.delete(joined);
  }
  garbageMade(all.byteLength);
  const total = reads.reduce((n, r) => n + r.blob.size, 0);
  if (all.byteLength !== total) return reads.forEach(readAlone);
  let at = 0;
  for (const r of reads) {
    r.resolve(new Uint8Array(all, at, r.blob.size));
    at += r.blob.size;
  }
}

/** Bounce buffers for BYOB reads, free between reads (a read detaches and returns one). */
const PIECE = 1 << 20;
const bounces: ArrayBuffer[] = [];

function byobReader(blob: Blob): { stream: ReadableStream<Uint8Array>; reader: ReadableStreamBYOBReader } | undefined {
  try {
    const stream = blob.stream();
    return { stream, reader: stream.getReader({ mode: 'byob' }) };
  } catch {
    return undefined; // not a byte stream here
  }
}

function openLarge(ref: FileRef, file: Blob): OpenedFile {
  const got = byobReader(file);
  if (got) {
    const { stream, reader: byob } = got;
    held.add(stream);
    // No read asks for more than the File's size leaves, so none waits on the stream's end to
    // settle. A File's size is fixed; a file changed since fails to read instead.
    let left = file.size;
    return {
      async readInto(dst) {
        if (left <= 0) return 0;
        const bounce = bounces.pop() ?? new ArrayBuffer(PIECE);
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await byob.read(new Uint8Array(bounce, 0, Math.min(dst.length, bounce.byteLength, left)));
        } catch (e) {
          throw readError(ref, e);
        }
        if (r.value) bounces.push(r.value.buffer as ArrayBuffer);
        if (r.done || !r.value) return 0;
        dst.set(r.value);
        left -= r.value.length;
        return r.value.length;
      },
      close() {
        held.delete(stream);
        void byob.cancel().catch(() => {}); // a no-op at the end; frees the pipe if we stop early
      },
    };
  }
  const reader = file.stream().getReader();
  let rest: Uint8Array | undefined;
  return {
    async readInto(dst) {
      while (!rest?.length) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          throw readError(ref, e);
        }
        if (r.done) return 0;
        rest = r.value;
      }
      const n = Math.min(dst.length, rest.length);
      dst.set(rest.subarray(0, n));
      rest = rest.subarray(n);
      return n;
    },
    close() {
      void reader.cancel().catch(() => {});
    },
  };
}

export const browserFileReader: FileContentReader = {
  async open(ref) {
    let file: Blob;
    try {
      file = await open(ref);
    } catch (e) {
      throw e instanceof CairnError ? e : readError(ref, e);
    }
    // Errors name the file: a served list's ref is only an index.
    if (isServedRef(ref)) ref = file;
    filesMade(); // a File made here (a clone, or getFile()), dropped once read
    if (file.size > SMALL_FILE) return openLarge(ref, file);
    let bytes: Promise<Uint8Array> | undefined = file.size === 0 ? undefined : readSmall(file);
    let at = 0;
    return {
      async readInto(dst) {
        if (!bytes) return 0;
        let all: Uint8Array;
        try {
          all = await bytes;
        } catch (e) {
          bytes = undefined;
          throw readError(ref, e);
        }
        const n = Math.min(dst.length, all.length - at);
        dst.set(all.subarray(at, at + n));
        at += n;
        if (at === all.length) bytes = undefined;
        return n;
      },
      async readAll() {
        if (!bytes) return new Uint8Array(0);
        try {
          return await bytes;
        } catch (e) {
          throw readError(ref, e);
        } finally {
          bytes = undefined;
        }
      },
      close() {
        bytes = undefined;
      },
    };
  },

  /** The same reads as a stream of fresh pieces (the FileSaver itself uses `open`). */
  async *read(ref, size, signal) {
    const file = await browserFileReader.open!(ref, size, signal);
    try {
      for (;;) {
        if (signal?.aborted) throw new CairnError('ABORTED', 'operation cancelled');
        const piece = new Uint8Array(Math.min(PIECE, Math.max(size, 4096)));
        const n = await file.readInto(piece);
        if (n === 0) return;
        yield piece.subarray(0, n);
      }
    } finally {
      await file.close();
    }
  },
};
