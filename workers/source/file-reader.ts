// Reads file contents in a file-saver worker: a File (webkitdirectory) or a
// FileSystemFileHandle (directory handle walk; getFile() here gives the current content).
// Through Blob.stream(): the browser keeps one data pipe full instead of answering one
// request per slice (Blob.slice().arrayBuffer() costs a round trip to the browser process per
// call, which dominated backup time in Chromium). The stream's pieces (64 KiB–1 MiB) go to the
// chunker as they come — it copies each chunk together once anyway — so a 50 GB video never
// sits in memory and no byte is copied here.

import { CairnError } from '../../core/errors';
import type { FileContentReader, FileRef } from '../../core/archiver/source';

function readError(ref: FileRef, e: unknown): CairnError {
  const name = (e as Error)?.name;
  const what = ref instanceof File ? ref.name : (ref as FileSystemFileHandle)?.name ?? 'file';
  const why =
    name === 'NotFoundError' ? 'vanished before it could be read'
    : name === 'NotAllowedError' || name === 'SecurityError' ? 'permission denied'
    : name === 'NotReadableError' ? 'cannot be read (changed or locked since it was picked)'
    : (e as Error)?.message ?? String(e);
  return new CairnError('SOURCE_READ', `${what}: ${why}`, { cause: e, detail: { domError: name } });
}

async function open(ref: FileRef): Promise<Blob> {
  if (ref instanceof Blob) return ref;
  const handle = ref as FileSystemFileHandle;
  if (typeof handle?.getFile !== 'function') throw new CairnError('INTERNAL', 'file reference is neither a File nor a FileSystemFileHandle');
  return handle.getFile();
}

/** Files up to this size are read with one arrayBuffer() call. */
const SMALL_FILE = 256 * 1024;

export const browserFileReader: FileContentReader = {
  async *read(ref, _size, signal) {
    let file: Blob;
    try {
      file = await open(ref);
    } catch (e) {
      throw readError(ref, e);
    }
    if (file.size === 0) return;
    if (file.size <= SMALL_FILE) {
      // One request, and no stream, reader or data pipe to set up and leave behind for the
      // garbage collector: a folder of 50k small files made that per-file litter add up.
      try {
        yield new Uint8Array(await file.arrayBuffer());
      } catch (e) {
        throw readError(ref, e);
      }
      return;
    }
    const reader = file.stream().getReader();
    try {
      for (;;) {
        if (signal?.aborted) throw new CairnError('ABORTED', 'operation cancelled');
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          throw readError(ref, e);
        }
        if (r.done) return;
        yield r.value;
      }
    } finally {
      void reader.cancel().catch(() => {}); // a no-op at the end; frees the pipe if we stop early
    }
  },
};
