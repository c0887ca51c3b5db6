// zstd frames built by hand, for tests of what a decoder must refuse.

/**
 * A decompression bomb: a frame of RLE blocks (4 bytes each for 128 KiB of one byte value),
 * `size` bytes of zeros in all, declaring its size or not.
 */
export function rleBomb(size: number, declare: boolean): Uint8Array {
  const BLOCK = 128 * 1024;
  const blocks = Math.ceil(size / BLOCK);
  const head = declare ? 4 + 1 + 1 + 8 : 4 + 1 + 1;
  const out = new Uint8Array(head + blocks * 4);
  const view = new DataView(out.buffer);
  out.set([0x28, 0xb5, 0x2f, 0xfd]);
  out[4] = declare ? 3 << 6 : 0; // FCS in 8 bytes (or none); not single segment; no checksum
  out[5] = (27 - 10) << 3; // window 128 MiB (default decoder limit)
  if (declare) view.setBigUint64(6, BigInt(size), true);
  for (let b = 0; b < blocks; b++) {
    const n = Math.min(BLOCK, size - b * BLOCK);
    const last = b === blocks - 1 ? 1 : 0;
    const h = (n << 3) | (1 << 1) | last; // RLE block
    const at = head + b * 4;
    out[at] = h & 0xff;
    out[at + 1] = (h >> 8) & 0xff;
    out[at + 2] = (h >> 16) & 0xff;
    out[at + 3] = 0; // the repeated byte
  }
  return out;
}
