// Reads file contents in a file-saver worker: a File (webkitdirectory) or a
// FileSystemFileHandle (directory handle walk; getFile() here gives the current content).
// Pieces of ~1 MiB via Blob.slice, so a 50 GB video never sits in memory.

import { CairnError } from '../../core/errors';
import type { FileContentReader, FileRef } from '../../core/archiver/source';

const PIECE = 1 << 20;

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

export const browserFileReader: FileContentReader = {
  async *read(ref, _size, signal) {
    let file: Blob;
    try {
      file = await open(ref);
    } catch (e) {
      throw readError(ref, e);
    }
    for (let at = 0; at < file.size; at += PIECE) {
      if (signal?.aborted) throw new CairnError('ABORTED', 'operation cancelled');
      let piece: Uint8Array;
      try {
        piece = new Uint8Array(await file.slice(at, Math.min(file.size, at + PIECE)).arrayBuffer());
      } catch (e) {
        throw readError(ref, e);
      }
      yield piece;
    }
  },
};
