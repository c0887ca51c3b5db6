// Turns a file's byte stream (pieces of any size) into restic chunks, each one contiguous.
// The archiver may call Chunker.scan itself to avoid the concatenation; this is the simple way.

import { CairnError } from '../errors';
import type { Chunker } from './chunker';

export interface ChunkStreamOptions {
  signal?: AbortSignal;
}

/**
 * Splits one file's bytes into chunks (each a fresh Uint8Array of at most MAX_SIZE bytes),
 * restarting the chunker first. Pieces are referenced until their chunk is complete, so a
 * source must not reuse a piece's buffer after yielding it.
 */
export async function* chunkStream(
  chunker: Chunker,
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: ChunkStreamOptions = {},
): AsyncGenerator<Uint8Array> {
  chunker.reset();
  let parts: Uint8Array[] = [];
  let size = 0;
  const take = (): Uint8Array => {
    const out = parts.length === 1 ? parts[0]!.slice() : concat(parts, size);
    parts = [];
    size = 0;
    return out;
  };
  const checkAbort = (): void => {
    if (options.signal?.aborted) throw new CairnError('ABORTED', 'chunking aborted', { op: 'chunkStream', cause: options.signal.reason });
  };
  for await (const piece of pieces) {
    checkAbort();
    let rest = piece;
    while (rest.length > 0) {
      checkAbort();
      const n = chunker.scan(rest);
      if (n < 0) {
        parts.push(rest);
        size += rest.length;
        break;
      }
      parts.push(rest.subarray(0, n));
      size += n;
      yield take();
      rest = rest.subarray(n);
    }
  }
  if (size > 0) yield take();
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
