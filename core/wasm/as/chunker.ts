// restic's Rabin fingerprint (restic/chunker v0.4.0), the per-byte part of the chunker.
// AssemblyScript, compiled by scripts/build-wasm.mjs into core/wasm/generated/chunker.ts.
//
// Why this is stateless: at every position where restic may cut (chunk offset >= MinSize-1)
// its digest is exactly the fingerprint of the last 64 bytes (the reset byte "1" has been slid
// out by then), i.e. a pure function of those bytes. So the caller copies the 64 bytes before
// the range into HISTORY and asks for the first candidate (digest & mask == 0) in the range;
// no window ring buffer and no digest survive between calls.
//
// Why four lanes: one digest chain is a serial dependency (shift -> table load -> xor) that
// leaves the core mostly idle. Candidates do not depend on where the chunk started, so four
// chains run in lockstep over four adjacent LANE-byte stretches and the earliest hit wins.
// Lane offsets and table addresses are constants, so they become load immediates.
//
// Update per byte b entering and o leaving (o = the byte 64 positions back), digest d < 2^k:
//   d' = ((d << 8) | b) ^ MOD[d >> (k-8)] ^ OUT[o]
// MOD is restic's mod table; OUT[o] = o * x^(8*64) mod P removes o after the shift (restic
// removes it before the shift with o * x^(8*63); both give the same canonical residue).

const MOD_TABLE: usize = 0x1000; // 256 x u64
const OUT_TABLE: usize = 0x1800; // 256 x u64
const HISTORY: usize = 0x2000; // the 64 bytes preceding DATA
const DATA: usize = HISTORY + 64;
const DATA_SIZE: usize = 2 << 20;
const SPLIT_MASK: u64 = (1 << 20) - 1;
const LANE: usize = 16384;
const MIN_LANE: usize = 1024;

const PAGES = <i32>((DATA + DATA_SIZE + 0xffff) >> 16);
if (memory.size() < PAGES) memory.grow(PAGES - memory.size());

let polShift: u64 = 45;
let found: u64 = 0;

/** Where the caller writes the bytes to scan (HISTORY = dataPtr() - 64). */
export function dataPtr(): usize {
  return DATA;
}

export function dataSize(): usize {
  return DATA_SIZE;
}

/** Where the 4 KiB of tables live, so the caller can cache and restore them per polynomial. */
export function tablesPtr(): usize {
  return MOD_TABLE;
}

function deg(x: u64): i32 {
  return 63 - <i32>clz(x);
}

function modPol(x: u64, pol: u64, k: i32): u64 {
  while (x != 0) {
    const d = deg(x);
    if (d < k) break;
    x ^= pol << <u64>(d - k);
  }
  return x;
}

/** Builds both tables for `pol` (degree 8..53, checked by the caller). */
export function setPolynomial(pol: u64): void {
  const k = deg(pol);
  polShift = <u64>(k - 8);
  for (let b: u64 = 0; b < 256; b++) {
    // o followed by 64 zero bytes, i.e. o * x^(8*64) mod P
    let h = b;
    for (let i = 0; i < 64; i++) h = modPol(h << 8, pol, k);
    store<u64>(OUT_TABLE + (<usize>b << 3), modPol(h, pol, k));
    const top = b << <u64>k;
    store<u64>(MOD_TABLE + (<usize>b << 3), modPol(top, pol, k) | top);
  }
}

/** Restores tables saved from tablesPtr() for a polynomial of degree k. */
export function setDegree(k: i32): void {
  polShift = <u64>(k - 8);
}

/** The digest at the position findCut returned. */
export function foundDigest(): u64 {
  return found;
}

// Fingerprint of the 64 bytes at q.
@inline function window64(q: usize, sh: u64): u64 {
  let d: u64 = 0;
  for (let i: usize = 0; i < 64; i++) {
    d = ((d << 8) | <u64>load<u8>(q + i)) ^ load<u64>(<usize>(d >> sh) << 3, MOD_TABLE);
  }
  return d;
}

/** Fingerprint of the 64 bytes ending at DATA[n-1] (restic's digest after that byte). */
export function fingerprintAt(n: usize): u64 {
  return window64(DATA + n - 64, polShift);
}

// First candidate in [from, to), one chain. Returns the absolute position or -1.
function oneLane(from: usize, to: usize): isize {
  const sh = polShift;
  let q = from - 64;
  const qEnd = to - 64;
  let d = window64(q, sh);
  while (q < qEnd) {
    d = ((d << 8) | <u64>load<u8>(q, 64)) ^ load<u64>(<usize>(d >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q) << 3, OUT_TABLE);
    if ((d & SPLIT_MASK) == 0) {
      found = d;
      return <isize>(q + 64);
    }
    q++;
  }
  return -1;
}

// Set by fourLanes when a lane other than 0 hits; only touched on the rare hit path, so the
// hot loop keeps its registers for the digests.
let hitLane = 4;
let hitPos: usize = 0;
let hitDigest: u64 = 0;

@inline function noteHit(lane: i32, pos: usize, d: u64): void {
  if (lane < hitLane) {
    hitLane = lane;
    hitPos = pos;
    hitDigest = d;
  }
}

// First candidate in [p, p + 4*LANE), four chains in lockstep. Inlined twice: with the shift
// of a degree-53 polynomial as a constant (every restic repository) and with any shift.
@inline function fourLanesWith(p: usize, sh: u64): isize {
  let q = p - 64;
  const qEnd = q + LANE;
  let d0 = window64(q, sh);
  let d1 = window64(q + LANE, sh);
  let d2 = window64(q + 2 * LANE, sh);
  let d3 = window64(q + 3 * LANE, sh);
  hitLane = 4;
  while (q < qEnd) {
    d0 = ((d0 << 8) | <u64>load<u8>(q, 64)) ^ load<u64>(<usize>(d0 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q) << 3, OUT_TABLE);
    d1 = ((d1 << 8) | <u64>load<u8>(q, LANE + 64)) ^ load<u64>(<usize>(d1 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q, LANE) << 3, OUT_TABLE);
    d2 = ((d2 << 8) | <u64>load<u8>(q, 2 * LANE + 64)) ^ load<u64>(<usize>(d2 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q, 2 * LANE) << 3, OUT_TABLE);
    d3 = ((d3 << 8) | <u64>load<u8>(q, 3 * LANE + 64)) ^ load<u64>(<usize>(d3 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q, 3 * LANE) << 3, OUT_TABLE);
    if (((d0 & SPLIT_MASK) == 0) | ((d1 & SPLIT_MASK) == 0) | ((d2 & SPLIT_MASK) == 0) | ((d3 & SPLIT_MASK) == 0)) {
      // Rare. Lane 0 is the earliest; a hit in lane c only stands if no lane < c hits later.
      if ((d0 & SPLIT_MASK) == 0) {
        found = d0;
        return <isize>(q + 64);
      }
      if ((d1 & SPLIT_MASK) == 0) noteHit(1, q + 64 + LANE, d1);
      else if ((d2 & SPLIT_MASK) == 0) noteHit(2, q + 64 + 2 * LANE, d2);
      else noteHit(3, q + 64 + 3 * LANE, d3);
    }
    q++;
  }
  if (hitLane == 4) return -1;
  found = hitDigest;
  return <isize>hitPos;
}

function fourLanes53(p: usize): isize {
  return fourLanesWith(p, 45);
}

function fourLanesAny(p: usize): isize {
  return fourLanesWith(p, polShift);
}

// Same for a short tail: four lanes of `lane` bytes (not a constant, so a little slower).
function fourShortLanes(p: usize, lane: usize): isize {
  const sh = polShift;
  let q0 = p - 64;
  let q1 = q0 + lane;
  let q2 = q1 + lane;
  let q3 = q2 + lane;
  const qEnd = q1;
  let d0 = window64(q0, sh);
  let d1 = window64(q1, sh);
  let d2 = window64(q2, sh);
  let d3 = window64(q3, sh);
  while (q0 < qEnd) {
    d0 = ((d0 << 8) | <u64>load<u8>(q0, 64)) ^ load<u64>(<usize>(d0 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q0) << 3, OUT_TABLE);
    d1 = ((d1 << 8) | <u64>load<u8>(q1, 64)) ^ load<u64>(<usize>(d1 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q1) << 3, OUT_TABLE);
    d2 = ((d2 << 8) | <u64>load<u8>(q2, 64)) ^ load<u64>(<usize>(d2 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q2) << 3, OUT_TABLE);
    d3 = ((d3 << 8) | <u64>load<u8>(q3, 64)) ^ load<u64>(<usize>(d3 >> sh) << 3, MOD_TABLE) ^ load<u64>(<usize>load<u8>(q3) << 3, OUT_TABLE);
    if (((d0 & SPLIT_MASK) == 0) | ((d1 & SPLIT_MASK) == 0) | ((d2 & SPLIT_MASK) == 0) | ((d3 & SPLIT_MASK) == 0)) {
      // Rare: settle it lane by lane with the simple loop.
      const at = q0 + 64;
      for (let c: usize = 0; c < 4; c++) {
        const r = oneLane(at + c * lane, p + (c + 1) * lane);
        if (r >= 0) return r;
      }
      return -1; // unreachable: the hit above is found again
    }
    q0++;
    q1++;
    q2++;
    q3++;
  }
  return -1;
}

/**
 * First position i in DATA[0..n) whose 64-byte window fingerprint has the low 20 bits clear,
 * or -1. HISTORY must hold the 64 bytes before DATA. The digest there is in foundDigest().
 */
export function findCut(n: usize): isize {
  let p = DATA;
  const end = DATA + n;
  const degree53 = polShift == 45;
  while (end - p >= 4 * LANE) {
    const r = degree53 ? fourLanes53(p) : fourLanesAny(p);
    if (r >= 0) return r - <isize>DATA;
    p += 4 * LANE;
  }
  const lane = (end - p) >> 2;
  if (lane >= MIN_LANE) {
    const r = fourShortLanes(p, lane);
    if (r >= 0) return r - <isize>DATA;
    p += 4 * lane;
  }
  const r = oneLane(p, end);
  return r >= 0 ? r - <isize>DATA : -1;
}
