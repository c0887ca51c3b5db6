// scrypt's ROMix (RFC 7914 §5) for one lane: the memory-hard part of scrypt, which runs once per
// lane on p independent 128·r-byte blocks. Running lanes on separate workers is what makes a
// key with several lanes (Cairn's own have p = 8) open in a fraction of the time of one call; the
// PBKDF2 steps around the lanes are cheap and live in core/crypto/scrypt-lanes.ts.
// AssemblyScript, compiled by scripts/build-wasm.mjs into core/wasm/generated/scrypt.ts.
//
// Use: romixSize(N, r) grows the memory (false if it cannot); write the lane's 128·r bytes at
// lanePtr(), romix(N, r), read the mixed lane back from lanePtr(). N is a power of two.
// Layout: the lane (ping), its partner (pong), one 64-byte salsa state, then V (N·128·r bytes).

const LANE: usize = 0x1000;

export function lanePtr(): usize {
  return LANE;
}

/** Grows the memory to hold a lane of r and V of N; false when the memory cannot grow. */
export function romixSize(N: u32, r: u32): bool {
  const len = <u64>r << 7;
  const need = <u64>LANE + 2 * len + 64 + <u64>N * len;
  if (need > 0xffff0000) return false;
  const pages = <i32>((need + 0xffff) >> 16);
  const have = memory.size();
  return pages <= have || memory.grow(pages - have) >= 0;
}

// salsa20/8 of (s xor b), written to s (RFC 7914 §3).
function salsaXor(s: usize, b: usize): void {
  const j0 = load<u32>(s, 0) ^ load<u32>(b, 0);
  const j1 = load<u32>(s, 4) ^ load<u32>(b, 4);
  const j2 = load<u32>(s, 8) ^ load<u32>(b, 8);
  const j3 = load<u32>(s, 12) ^ load<u32>(b, 12);
  const j4 = load<u32>(s, 16) ^ load<u32>(b, 16);
  const j5 = load<u32>(s, 20) ^ load<u32>(b, 20);
  const j6 = load<u32>(s, 24) ^ load<u32>(b, 24);
  const j7 = load<u32>(s, 28) ^ load<u32>(b, 28);
  const j8 = load<u32>(s, 32) ^ load<u32>(b, 32);
  const j9 = load<u32>(s, 36) ^ load<u32>(b, 36);
  const j10 = load<u32>(s, 40) ^ load<u32>(b, 40);
  const j11 = load<u32>(s, 44) ^ load<u32>(b, 44);
  const j12 = load<u32>(s, 48) ^ load<u32>(b, 48);
  const j13 = load<u32>(s, 52) ^ load<u32>(b, 52);
  const j14 = load<u32>(s, 56) ^ load<u32>(b, 56);
  const j15 = load<u32>(s, 60) ^ load<u32>(b, 60);
  let x0 = j0, x1 = j1, x2 = j2, x3 = j3, x4 = j4, x5 = j5, x6 = j6, x7 = j7;
  let x8 = j8, x9 = j9, x10 = j10, x11 = j11, x12 = j12, x13 = j13, x14 = j14, x15 = j15;
  for (let i = 0; i < 4; i++) {
    // columns
    x4 ^= rotl<u32>(x0 + x12, 7);
    x8 ^= rotl<u32>(x4 + x0, 9);
    x12 ^= rotl<u32>(x8 + x4, 13);
    x0 ^= rotl<u32>(x12 + x8, 18);
    x9 ^= rotl<u32>(x5 + x1, 7);
    x13 ^= rotl<u32>(x9 + x5, 9);
    x1 ^= rotl<u32>(x13 + x9, 13);
    x5 ^= rotl<u32>(x1 + x13, 18);
    x14 ^= rotl<u32>(x10 + x6, 7);
    x2 ^= rotl<u32>(x14 + x10, 9);
    x6 ^= rotl<u32>(x2 + x14, 13);
    x10 ^= rotl<u32>(x6 + x2, 18);
    x3 ^= rotl<u32>(x15 + x11, 7);
    x7 ^= rotl<u32>(x3 + x15, 9);
    x11 ^= rotl<u32>(x7 + x3, 13);
    x15 ^= rotl<u32>(x11 + x7, 18);
    // rows
    x1 ^= rotl<u32>(x0 + x3, 7);
    x2 ^= rotl<u32>(x1 + x0, 9);
    x3 ^= rotl<u32>(x2 + x1, 13);
    x0 ^= rotl<u32>(x3 + x2, 18);
    x6 ^= rotl<u32>(x5 + x4, 7);
    x7 ^= rotl<u32>(x6 + x5, 9);
    x4 ^= rotl<u32>(x7 + x6, 13);
    x5 ^= rotl<u32>(x4 + x7, 18);
    x11 ^= rotl<u32>(x10 + x9, 7);
    x8 ^= rotl<u32>(x11 + x10, 9);
    x9 ^= rotl<u32>(x8 + x11, 13);
    x10 ^= rotl<u32>(x9 + x8, 18);
    x12 ^= rotl<u32>(x15 + x14, 7);
    x13 ^= rotl<u32>(x12 + x15, 9);
    x14 ^= rotl<u32>(x13 + x12, 13);
    x15 ^= rotl<u32>(x14 + x13, 18);
  }
  store<u32>(s, x0 + j0, 0);
  store<u32>(s, x1 + j1, 4);
  store<u32>(s, x2 + j2, 8);
  store<u32>(s, x3 + j3, 12);
  store<u32>(s, x4 + j4, 16);
  store<u32>(s, x5 + j5, 20);
  store<u32>(s, x6 + j6, 24);
  store<u32>(s, x7 + j7, 28);
  store<u32>(s, x8 + j8, 32);
  store<u32>(s, x9 + j9, 36);
  store<u32>(s, x10 + j10, 40);
  store<u32>(s, x11 + j11, 44);
  store<u32>(s, x12 + j12, 48);
  store<u32>(s, x13 + j13, 52);
  store<u32>(s, x14 + j14, 56);
  store<u32>(s, x15 + j15, 60);
}

// BlockMix (RFC 7914 §4) of the 2r 64-byte blocks at `src` into `dst`: even blocks first, then odd.
function blockMix(src: usize, dst: usize, s: usize, r: usize): void {
  memory.copy(s, src + ((2 * r - 1) << 6), 64);
  for (let i: usize = 0; i < 2 * r; i++) {
    salsaXor(s, src + (i << 6));
    memory.copy(dst + (((i & 1) * r + (i >> 1)) << 6), s, 64);
  }
}

function xorInto(dst: usize, src: usize, len: usize): void {
  for (let i: usize = 0; i < len; i += 8) store<u64>(dst + i, load<u64>(dst + i) ^ load<u64>(src + i));
}

/** ROMix of the lane at lanePtr() in place; romixSize(N, r) must have said true. */
export function romix(N: u32, r: u32): void {
  const len = <usize>r << 7;
  let x = LANE;
  let y = LANE + len;
  const s = LANE + 2 * len;
  const v = s + 64;
  for (let i: usize = 0; i < <usize>N; i++) {
    memory.copy(v + i * len, x, len);
    blockMix(x, y, s, r);
    const t = x;
    x = y;
    y = t;
  }
  const mask = N - 1;
  for (let i: u32 = 0; i < N; i++) {
    const j = <usize>(load<u32>(x + len - 64) & mask); // Integerify: the last block's first word, mod N
    xorInto(x, v + j * len, len);
    blockMix(x, y, s, r);
    const t = x;
    x = y;
    y = t;
  }
  // N is even, so the result ends at LANE; kept general for any N.
  if (x != LANE) memory.copy(LANE, x, len);
}
