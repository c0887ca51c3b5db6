// lstat results as numbers in typed arrays: what the stat thread (cli/pool/stat-worker.ts)
// hands the coordinator for a batch of names, in one message of three transferred buffers
// instead of an object per entry. Times go as whole seconds, nanoseconds and the local zone's
// offset at that instant (restic records times in the local zone), so the coordinator makes
// a GoTime without a BigInt or a Date.

import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { GoTime } from '../../core/data/go-time';

/** Whole seconds per entry, in a Float64Array: mtime, atime, ctime. */
const SECS = 3;
/**
 * 32-bit numbers per entry, in a Uint32Array: mode, uid, gid, nlink, size (low, high 32 bits),
 * then (nanoseconds, zone offset as int32) for mtime, atime, ctime. Read back as 32-bit
 * integers, small values are V8 small integers, as Number(bigint) gave; numbers read from a
 * Float64Array would make the nodes' fields doubles, which the tree encoder writes ~3× slower.
 */
export const INTS = 12;
/** 64-bit numbers per entry: inode, device, rdev. */
export const BIGS = 3;

export interface LstatBatch {
  secs: Float64Array<ArrayBuffer>;
  ints: Uint32Array<ArrayBuffer>;
  bigs: BigUint64Array<ArrayBuffer>;
  /** Symlink targets by position (an unreadable one as ''). */
  links: [number, string][];
  /** Names that could not be lstat'ed: position, errno code, message. */
  errors: [number, string | undefined, string][];
}

const NS = 1_000_000_000n;

/** Zone offset (seconds east of UTC) at the instant `sec`, as the local zone says. */
function zoneOffset(sec: number): number {
  return -new Date(sec * 1000).getTimezoneOffset() * 60;
}

function putTime(b: LstatBatch, i: number, k: number, ns: bigint): void {
  let sec = ns / NS;
  let nsec = ns % NS;
  if (nsec < 0n) {
    nsec += NS;
    sec -= 1n;
  }
  b.secs[i * SECS + k] = Number(sec);
  b.ints[i * INTS + 6 + 2 * k] = Number(nsec);
  b.ints[i * INTS + 7 + 2 * k] = zoneOffset(Number(sec)) >>> 0;
}

/** Time `k` (0 mtime, 1 atime, 2 ctime) of entry `i`, in the zone it was taken in. */
export function timeAt(b: LstatBatch, i: number, k: number): GoTime {
  return GoTime.fromUnix(b.secs[i * SECS + k]!, b.ints[i * INTS + 6 + 2 * k]!, b.ints[i * INTS + 7 + 2 * k]! | 0);
}

/** The size of entry `i`. */
export function sizeAt(b: LstatBatch, i: number): number {
  const lo = b.ints[i * INTS + 4]!;
  const hi = b.ints[i * INTS + 5]!;
  return hi === 0 ? lo : hi * 2 ** 32 + lo;
}

/** lstats `dir/name` for each name, in order; one that fails is noted in `errors` and its numbers left 0. */
export function lstatBatch(dir: string, names: readonly string[]): LstatBatch {
  const n = names.length;
  const batch: LstatBatch = { secs: new Float64Array(n * SECS), ints: new Uint32Array(n * INTS), bigs: new BigUint64Array(n * BIGS), links: [], errors: [] };
  for (let i = 0; i < names.length; i++) lstatInto(path.join(dir, names[i]!), batch, i);
  return batch;
}

function lstatInto(p: string, batch: LstatBatch, i: number): void {
  let st;
  try {
    st = lstatSync(p, { bigint: true });
  } catch (e) {
    batch.errors.push([i, (e as NodeJS.ErrnoException).code, (e as Error).message]);
    return;
  }
  const at = i * INTS;
  const ints = batch.ints;
  const size = Number(st.size);
  ints[at] = Number(st.mode);
  ints[at + 1] = Number(st.uid);
  ints[at + 2] = Number(st.gid);
  ints[at + 3] = Number(st.nlink);
  ints[at + 4] = size % 2 ** 32;
  ints[at + 5] = Math.floor(size / 2 ** 32);
  putTime(batch, i, 0, st.mtimeNs);
  putTime(batch, i, 1, st.atimeNs);
  putTime(batch, i, 2, st.ctimeNs);
  batch.bigs[i * BIGS] = st.ino;
  batch.bigs[i * BIGS + 1] = st.dev;
  batch.bigs[i * BIGS + 2] = st.rdev;
  if (st.isSymbolicLink()) {
    let target = '';
    try {
      target = readlinkSync(p);
    } catch {
      // unreadable target: recorded empty, as restic does
    }
    batch.links.push([i, target]);
  }
}
