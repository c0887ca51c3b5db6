// Byte ranges for Backend.load, decided once so every backend answers alike.
//
// Rules (the conformance suite checks them):
// - `offset` defaults to 0, `length` 0/undefined means "to the end".
// - A range that runs past the end is an error, not a short read: restic (since 0.16,
//   internal/backend/test/tests.go "out of bounds read") treats a short read as a permanent
//   error, because a truncated blob would otherwise surface later as a confusing MAC failure.
// - `offset === size` with no length is an empty read (a zero-length object loads as empty).

import { CairnError } from '../errors';
import { handleString, type Handle, type LoadOptions } from './backend';

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, exclusive. */
  end: number;
}

/** Checks the request itself (independent of the object's size); throws a permanent error. */
export function checkLoadOptions(h: Handle, opts: LoadOptions = {}): void {
  const { offset = 0, length = 0 } = opts;
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new CairnError('INTERNAL', `invalid range offset=${offset} length=${length} for ${handleString(h)}`, {
      op: 'load',
      detail: { handle: handleString(h), offset, length },
    });
  }
}

/** The error for a range that runs past the end of an object: permanent, and not NOT_FOUND. */
export function outOfRangeError(h: Handle, offset: number, length: number, size: number): CairnError {
  return new CairnError('BACKEND_IO', `range offset=${offset} length=${length} runs past the end of ${handleString(h)} (${size} bytes)`, {
    op: 'load',
    retryable: false,
    detail: { reason: 'out-of-range', handle: handleString(h), offset, length, size },
  });
}

/** Turns load options into an absolute range of an object of `size` bytes. */
export function resolveRange(h: Handle, size: number, opts: LoadOptions = {}): ByteRange {
  checkLoadOptions(h, opts);
  const { offset = 0, length = 0 } = opts;
  const end = length > 0 ? offset + length : size;
  if (offset > size || end > size) throw outOfRangeError(h, offset, length, size);
  return { start: offset, end };
}
