// Poly1305 (RFC 8439 §2.5), the MAC in restic's "AES-256-CTR + Poly1305-AES".
// AssemblyScript, compiled by scripts/build-wasm.mjs into core/wasm/generated/poly1305.ts.
//
// Radix 2^26: h and r as five 26-bit limbs in i64 locals, so every product fits an i64
// (WASM has no 64x64->128 multiply). Blocks go two at a time as h = (h + m1)*r^2 + m2*r,
// which does the same multiplications as two single steps but only one carry chain.
// Bounds: limbs < 2^27 after adding a block, r^2 limbs times 5 < 2^29, ten products per
// column < 2^60.
//
// Use: write the 32-byte key (r || s, r unclamped) at keyPtr(), init(); then any number of
// blocks(len) over data at dataPtr() (len a multiple of 16 except on the last call), then
// finish(len) with the last 0..15 bytes at dataPtr(); the tag is at tagPtr().

const KEY: usize = 0x400; // 32 bytes
const TAG: usize = 0x440; // 16 bytes
const DATA: usize = 0x1000;
const DATA_SIZE: usize = 1 << 20;
const M26: u64 = 0x3ffffff;
const HIBIT: u64 = 1 << 24; // the 2^128 pad bit, in limb 4

const PAGES = <i32>((DATA + DATA_SIZE + 0xffff) >> 16);
if (memory.size() < PAGES) memory.grow(PAGES - memory.size());

let r0: u64 = 0, r1: u64 = 0, r2: u64 = 0, r3: u64 = 0, r4: u64 = 0;
let q0: u64 = 0, q1: u64 = 0, q2: u64 = 0, q3: u64 = 0, q4: u64 = 0; // r^2
let h0: u64 = 0, h1: u64 = 0, h2: u64 = 0, h3: u64 = 0, h4: u64 = 0;

export function keyPtr(): usize {
  return KEY;
}

export function tagPtr(): usize {
  return TAG;
}

export function dataPtr(): usize {
  return DATA;
}

export function dataSize(): usize {
  return DATA_SIZE;
}

/** Loads r (clamped here) from the key and clears the accumulator. */
export function init(): void {
  r0 = <u64>load<u32>(KEY) & 0x3ffffff;
  r1 = (<u64>load<u32>(KEY, 3) >> 2) & 0x3ffff03;
  r2 = (<u64>load<u32>(KEY, 6) >> 4) & 0x3ffc0ff;
  r3 = (<u64>load<u32>(KEY, 9) >> 6) & 0x3f03fff;
  r4 = (<u64>load<u32>(KEY, 12) >> 8) & 0x00fffff;
  h0 = 0;
  h1 = 0;
  h2 = 0;
  h3 = 0;
  h4 = 0;
  // r^2, partially reduced like h after a block
  const s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
  let d0 = r0 * r0 + r1 * s4 + r2 * s3 + r3 * s2 + r4 * s1;
  let d1 = r0 * r1 + r1 * r0 + r2 * s4 + r3 * s3 + r4 * s2;
  let d2 = r0 * r2 + r1 * r1 + r2 * r0 + r3 * s4 + r4 * s3;
  let d3 = r0 * r3 + r1 * r2 + r2 * r1 + r3 * r0 + r4 * s4;
  let d4 = r0 * r4 + r1 * r3 + r2 * r2 + r3 * r1 + r4 * r0;
  let c = d0 >> 26;
  d0 &= M26;
  d1 += c;
  c = d1 >> 26;
  d1 &= M26;
  d2 += c;
  c = d2 >> 26;
  d2 &= M26;
  d3 += c;
  c = d3 >> 26;
  d3 &= M26;
  d4 += c;
  c = d4 >> 26;
  d4 &= M26;
  d0 += c * 5;
  c = d0 >> 26;
  d0 &= M26;
  d1 += c;
  q0 = d0;
  q1 = d1;
  q2 = d2;
  q3 = d3;
  q4 = d4;
}

/** Absorbs the whole 16-byte blocks among the first len bytes at dataPtr(). */
export function blocks(len: usize): void {
  const R0 = r0, R1 = r1, R2 = r2, R3 = r3, R4 = r4;
  const S1 = R1 * 5, S2 = R2 * 5, S3 = R3 * 5, S4 = R4 * 5;
  const Q0 = q0, Q1 = q1, Q2 = q2, Q3 = q3, Q4 = q4;
  const T1 = Q1 * 5, T2 = Q2 * 5, T3 = Q3 * 5, T4 = Q4 * 5;
  let H0 = h0, H1 = h1, H2 = h2, H3 = h3, H4 = h4;
  let m = DATA;
  const pairsEnd = DATA + (len & ~(<usize>31));
  while (m < pairsEnd) {
    H0 += <u64>load<u32>(m) & M26;
    H1 += (<u64>load<u32>(m, 3) >> 2) & M26;
    H2 += (<u64>load<u32>(m, 6) >> 4) & M26;
    H3 += (<u64>load<u32>(m, 9) >> 6) & M26;
    H4 += (<u64>load<u32>(m, 12) >> 8) | HIBIT;
    const M0 = <u64>load<u32>(m, 16) & M26;
    const M1 = (<u64>load<u32>(m, 19) >> 2) & M26;
    const M2 = (<u64>load<u32>(m, 22) >> 4) & M26;
    const M3 = (<u64>load<u32>(m, 25) >> 6) & M26;
    const M4 = (<u64>load<u32>(m, 28) >> 8) | HIBIT;
    let d0 = H0 * Q0 + H1 * T4 + H2 * T3 + H3 * T2 + H4 * T1 + M0 * R0 + M1 * S4 + M2 * S3 + M3 * S2 + M4 * S1;
    let d1 = H0 * Q1 + H1 * Q0 + H2 * T4 + H3 * T3 + H4 * T2 + M0 * R1 + M1 * R0 + M2 * S4 + M3 * S3 + M4 * S2;
    let d2 = H0 * Q2 + H1 * Q1 + H2 * Q0 + H3 * T4 + H4 * T3 + M0 * R2 + M1 * R1 + M2 * R0 + M3 * S4 + M4 * S3;
    let d3 = H0 * Q3 + H1 * Q2 + H2 * Q1 + H3 * Q0 + H4 * T4 + M0 * R3 + M1 * R2 + M2 * R1 + M3 * R0 + M4 * S4;
    let d4 = H0 * Q4 + H1 * Q3 + H2 * Q2 + H3 * Q1 + H4 * Q0 + M0 * R4 + M1 * R3 + M2 * R2 + M3 * R1 + M4 * R0;
    let c = d0 >> 26;
    H0 = d0 & M26;
    d1 += c;
    c = d1 >> 26;
    H1 = d1 & M26;
    d2 += c;
    c = d2 >> 26;
    H2 = d2 & M26;
    d3 += c;
    c = d3 >> 26;
    H3 = d3 & M26;
    d4 += c;
    c = d4 >> 26;
    H4 = d4 & M26;
    H0 += c * 5;
    c = H0 >> 26;
    H0 &= M26;
    H1 += c;
    m += 32;
  }
  h0 = H0;
  h1 = H1;
  h2 = H2;
  h3 = H3;
  h4 = H4;
  if (len & 16) block(m, HIBIT);
}

// One block at m; hibit is 0 for the padded final block.
function block(m: usize, hibit: u64): void {
  const R0 = r0, R1 = r1, R2 = r2, R3 = r3, R4 = r4;
  const S1 = R1 * 5, S2 = R2 * 5, S3 = R3 * 5, S4 = R4 * 5;
  const H0 = h0 + (<u64>load<u32>(m) & M26);
  const H1 = h1 + ((<u64>load<u32>(m, 3) >> 2) & M26);
  const H2 = h2 + ((<u64>load<u32>(m, 6) >> 4) & M26);
  const H3 = h3 + ((<u64>load<u32>(m, 9) >> 6) & M26);
  const H4 = h4 + ((<u64>load<u32>(m, 12) >> 8) | hibit);
  const d0 = H0 * R0 + H1 * S4 + H2 * S3 + H3 * S2 + H4 * S1;
  let d1 = H0 * R1 + H1 * R0 + H2 * S4 + H3 * S3 + H4 * S2;
  let d2 = H0 * R2 + H1 * R1 + H2 * R0 + H3 * S4 + H4 * S3;
  let d3 = H0 * R3 + H1 * R2 + H2 * R1 + H3 * R0 + H4 * S4;
  let d4 = H0 * R4 + H1 * R3 + H2 * R2 + H3 * R1 + H4 * R0;
  let c = d0 >> 26;
  h0 = d0 & M26;
  d1 += c;
  c = d1 >> 26;
  h1 = d1 & M26;
  d2 += c;
  c = d2 >> 26;
  h2 = d2 & M26;
  d3 += c;
  c = d3 >> 26;
  h3 = d3 & M26;
  d4 += c;
  c = d4 >> 26;
  h4 = d4 & M26;
  h0 += c * 5;
  c = h0 >> 26;
  h0 &= M26;
  h1 += c;
}

/** Absorbs the final len (0..15) bytes at dataPtr(), then writes (h mod p) + s to tagPtr(). */
export function finish(len: usize): void {
  if (len > 0) {
    // Pad: the byte 1 after the message, then zeros; no 2^128 bit.
    memory.fill(DATA + len, 0, 16 - len);
    store<u8>(DATA + len, 1);
    block(DATA, 0);
  }
  // Fully carry h.
  let c = h1 >> 26;
  h1 &= M26;
  h2 += c;
  c = h2 >> 26;
  h2 &= M26;
  h3 += c;
  c = h3 >> 26;
  h3 &= M26;
  h4 += c;
  c = h4 >> 26;
  h4 &= M26;
  h0 += c * 5;
  c = h0 >> 26;
  h0 &= M26;
  h1 += c;
  // g = h + 5 - 2^130; if it does not borrow, h >= p and the result is g.
  let g0 = h0 + 5;
  c = g0 >> 26;
  g0 &= M26;
  let g1 = h1 + c;
  c = g1 >> 26;
  g1 &= M26;
  let g2 = h2 + c;
  c = g2 >> 26;
  g2 &= M26;
  let g3 = h3 + c;
  c = g3 >> 26;
  g3 &= M26;
  const g4 = h4 + c - (1 << 26);
  const useG = (g4 >> 63) - 1; // all ones when g4 did not go negative
  const useH = ~useG;
  const f0 = (h0 & useH) | (g0 & useG);
  const f1 = (h1 & useH) | (g1 & useG);
  const f2 = (h2 & useH) | (g2 & useG);
  const f3 = (h3 & useH) | (g3 & useG);
  const f4 = (h4 & useH) | (g4 & useG & M26);
  // h mod 2^128 as four 32-bit words, by exact addition (a limb may still be 2^26 here).
  let acc = f0 + (f1 << 26);
  const w0 = acc & 0xffffffff;
  acc = (acc >> 32) + (f2 << 20);
  const w1 = acc & 0xffffffff;
  acc = (acc >> 32) + (f3 << 14);
  const w2 = acc & 0xffffffff;
  acc = (acc >> 32) + (f4 << 8);
  const w3 = acc & 0xffffffff;
  // plus s, mod 2^128
  let t = w0 + <u64>load<u32>(KEY, 16);
  store<u32>(TAG, <u32>t);
  t = w1 + <u64>load<u32>(KEY, 20) + (t >> 32);
  store<u32>(TAG, <u32>t, 4);
  t = w2 + <u64>load<u32>(KEY, 24) + (t >> 32);
  store<u32>(TAG, <u32>t, 8);
  t = w3 + <u64>load<u32>(KEY, 28) + (t >> 32);
  store<u32>(TAG, <u32>t, 12);
}
