// Reading chosen blobs of one pack, each verified (restic loadBlobsFromPack): blobs close to
// each other come in one request, and each blob is decrypted, decompressed and hashed. A blob
// that cannot be had is reported with its error and the others still come, so copy, repack and
// `repair packs` salvage what is intact.

import { CairnError, isCairnError, serializeError } from '../errors';
import type { ID } from '../id';
import type { PackedBlob } from '../pack/header';
import { decodeBlob } from './blob-codec';
import type { Repository } from './repository';

/** Blobs further apart than this are read in separate requests (restic: maxUnusedRange). */
const MAX_GAP = 1 << 20;

export type BlobHandler = (blob: PackedBlob, plain: Uint8Array | undefined, error: CairnError | undefined) => void | Promise<void>;

export interface LoadBlobsOptions {
  signal?: AbortSignal;
  /**
   * Read the whole file once instead of the blobs' ranges: for damaged packs, whose blobs may
   * run past a truncated end (a range past the end is an error, the whole file is not).
   */
  whole?: boolean;
}

/** Calls `onBlob` for every listed blob, in pack order; `plain` is only valid during the call. */
export async function loadBlobsFromPack(
  repo: Repository,
  packID: ID,
  blobs: readonly PackedBlob[],
  onBlob: BlobHandler,
  opts: LoadBlobsOptions = {},
): Promise<void> {
  const sorted = [...blobs].sort((a, b) => a.offset - b.offset);
  for (const run of opts.whole ? [sorted] : runs(sorted)) {
    if (run.length === 0) continue;
    const start = opts.whole ? 0 : run[0]!.offset;
    const end = Math.max(...run.map((b) => b.offset + b.length));
    let bytes: Uint8Array;
    try {
      bytes = await repo.backend.load(
        { type: 'data', name: packID },
        opts.whole ? { signal: opts.signal } : { offset: start, length: end - start, signal: opts.signal },
      );
    } catch (e) {
      if (isCairnError(e, 'ABORTED')) throw e;
      const err = asCairnError(e, `pack ${packID.slice(0, 8)} cannot be read`);
      for (const b of run) await onBlob(b, undefined, err);
      continue;
    }
    await decodeRun(repo, packID, run, bytes, start, onBlob);
  }
}

async function decodeRun(repo: Repository, packID: ID, run: PackedBlob[], bytes: Uint8Array, start: number, onBlob: BlobHandler): Promise<void> {
  let prevEnd = -1;
  for (let i = 0; i < run.length; i++) {
    const b = run[i]!;
    const from = b.offset - start;
    const to = from + b.length;
    if (to > bytes.length) {
      await onBlob(
        b,
        undefined,
        new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)} ends before ${b.type} blob ${b.id.slice(0, 8)} (unexpected EOF)`, {
          detail: { pack: packID, blob: b.id },
        }),
      );
      continue;
    }
    // Decrypted in place unless a neighbour listed over the same bytes still needs them.
    const next = run[i + 1];
    const inPlace = b.offset >= prevEnd && (!next || next.offset >= b.offset + b.length);
    prevEnd = Math.max(prevEnd, b.offset + b.length);
    let plain: Uint8Array | undefined;
    let error: CairnError | undefined;
    try {
      plain = await decodeBlob(repo.key, bytes.subarray(from, to), { ...b, packID }, inPlace);
    } catch (e) {
      error = asCairnError(e, `${b.type} blob ${b.id.slice(0, 8)} cannot be decoded`);
    }
    await onBlob(b, plain, error);
  }
}

/** Groups blobs (sorted by offset) into runs read with one request each. */
function runs(sorted: PackedBlob[]): PackedBlob[][] {
  const out: PackedBlob[][] = [];
  let cur: PackedBlob[] = [];
  let end = 0;
  for (const b of sorted) {
    if (cur.length && b.offset - end > MAX_GAP) {
      out.push(cur);
      cur = [];
    }
    cur.push(b);
    end = Math.max(cur.length === 1 ? 0 : end, b.offset + b.length);
  }
  if (cur.length) out.push(cur);
  return out;
}

function asCairnError(e: unknown, what: string): CairnError {
  if (e instanceof CairnError) return e;
  return new CairnError('INTERNAL', `${what}: ${serializeError(e).message}`, { cause: e });
}
