// How a restore cuts the blobs it needs from one pack into reads and decode requests: pure
// functions over index entries (offsets, lengths), so each rule is tested alone.

import type { BlobLocation } from '../index/master-index';
import { plainLength } from '../repository/blob-codec';

/** Plaintext one decode request of restore's carries at most (a larger blob goes alone). */
export const DECODE_GROUP_BYTES = 4 << 20;

/**
 * Blobs one decode request carries at most: each comes back as an object of its own on both
 * threads, kept until its group's files are written. A group of tiny blobs cut by bytes alone
 * (4 MiB of 10-byte files) would make hundreds of thousands at once, and the longer a group
 * takes to write, the more of its objects outlive young-generation collections and wait for a
 * full one (1 M tiny files: peak 1 490 MiB at 4 096 a group, 1 229–1 356 at 1 024, 1 091–1 177 at 512,
 * at the same CPU; bench/README.md, "Restore's memory at 1 M tiny files").
 */
export const DECODE_GROUP_BLOBS = 512;

/** A stored blob this big on average is worth decoding in place rather than copying out. */
const IN_PLACE_BLOB = 64 << 10;

type Located = { loc: BlobLocation };

/** The bytes of a pack that `list` (sorted by offset) spans. */
export function rangeOf(list: readonly Located[]): { start: number; end: number } {
  const start = list[0]!.loc.offset;
  return { start, end: list.reduce((m, b) => Math.max(m, b.loc.offset + b.loc.length), 0) };
}

/** Splits a pack's blobs (in pack order) into runs of at most DECODE_GROUP_BYTES of plaintext and `maxBlobs` blobs. */
export function decodeGroups<T extends Located>(list: readonly T[], maxBlobs = DECODE_GROUP_BLOBS): T[][] {
  const groups: T[][] = [];
  let cur: T[] = [];
  let n = 0;
  for (const b of list) {
    const plain = plainLength(b.loc.length, b.loc.uncompressedLength);
    if (cur.length && (n + plain > DECODE_GROUP_BYTES || cur.length >= maxBlobs)) {
      groups.push(cur);
      cur = [];
      n = 0;
    }
    cur.push(b);
    n += plain;
  }
  if (cur.length) groups.push(cur);
  return groups;
}

/**
 * Most of these blobs' plaintext is stored as is (not compressed), in blobs of IN_PLACE_BLOB
 * or more on average: few writes, so the pack's buffer is not held long, and copying them out
 * would cost more than holding it.
 */
export function decodeInPlace(list: readonly Located[]): boolean {
  let stored = 0,
    storedBlobs = 0,
    all = 0;
  for (const { loc } of list) {
    const plain = plainLength(loc.length, loc.uncompressedLength);
    all += plain;
    if (!loc.uncompressedLength) {
      stored += plain;
      storedBlobs++;
    }
  }
  return stored * 2 > all && stored >= storedBlobs * IN_PLACE_BLOB;
}

/**
 * Whether two of these blobs (sorted by offset) share bytes. Only a damaged or forged index
 * says so, and then no blob may be decrypted in place: it would overwrite another's bytes.
 */
export function overlapping(list: readonly Located[]): boolean {
  for (let i = 1; i < list.length; i++) {
    const prev = list[i - 1]!.loc;
    if (list[i]!.loc.offset < prev.offset + prev.length) return true;
  }
  return false;
}

/** Whether a blob lies wholly within `got` bytes read from `start`. */
export function intact(b: Located, start: number, got: number): boolean {
  return b.loc.offset - start + b.loc.length <= got;
}
