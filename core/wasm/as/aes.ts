// AES-256-CTR (Go's cipher.NewCTR: the whole 16-byte IV is one big-endian 128-bit counter)
// and single AES-128 blocks (Poly1305-AES's nonce encryption), for browsers whose WebCrypto
// AES is slow (some Chromium builds run it through one thread per renderer; bench/README.md).
// AssemblyScript, compiled by scripts/build-wasm.mjs into core/wasm/generated/aes.ts.
//
// Classic T-table AES: four 1 KiB tables fold SubBytes, ShiftRows and MixColumns into four
// lookups per column. State words are little-endian columns: byte r of column c is bits
// 8r..8r+7 of word c. Table lookups depend on data, as in every table AES; the keys here
// encrypt the user's own data on the user's own machine.
//
// Use: write the key at keyPtr() and call expand256() (or expand128() for 16 bytes); write
// the IV at ivPtr(); put data at dataPtr() and call ctr(len) (len ≤ dataSize(); the counter
// advances, so a long message goes through in pieces — pieces other than the last must be
// a multiple of 16 bytes); or call block128() to encrypt the 16 bytes at ivPtr() into
// outPtr() with the AES-128 key.

const TE: usize = 0x1000; // 4 tables × 256 × u32
const SBOX: usize = 0x2000; // 256 bytes
const RK256: usize = 0x2200; // 60 words
const RK128: usize = 0x2400; // 44 words
const IV: usize = 0x2600; // 16 bytes (the counter)
const OUT: usize = 0x2640; // 16 bytes
const KEY: usize = 0x2680; // 32 bytes
const DATA: usize = 0x10000;
const DATA_SIZE: usize = 1 << 20;

const PAGES = <i32>((DATA + DATA_SIZE + 0xffff) >> 16);
if (memory.size() < PAGES) memory.grow(PAGES - memory.size());

// --- tables, built once at start ---
function xtime(x: u32): u32 {
  return ((x << 1) ^ ((x >> 7) * 0x1b)) & 0xff;
}

function buildTables(): void {
  // log/antilog over GF(2^8) with generator 3, then the inverse and the affine map.
  const exp = new StaticArray<u32>(256);
  const log = new StaticArray<u32>(256);
  let x: u32 = 1;
  for (let i = 0; i < 255; i++) {
    unchecked((exp[i] = x));
    unchecked((log[x] = i));
    x ^= xtime(x);
  }
  for (let i = 0; i < 256; i++) {
    let inv: u32 = i == 0 ? 0 : unchecked(exp[(255 - unchecked(log[i])) % 255]);
    let s = inv;
    for (let k = 0; k < 4; k++) {
      inv = ((inv << 1) | (inv >> 7)) & 0xff;
      s ^= inv;
    }
    s ^= 0x63;
    store<u8>(SBOX + i, <u8>s);
    const t0 = xtime(s) | (s << 8) | (s << 16) | ((xtime(s) ^ s) << 24);
    store<u32>(TE + (<usize>i << 2), t0);
    store<u32>(TE + 1024 + (<usize>i << 2), rotl<u32>(t0, 8));
    store<u32>(TE + 2048 + (<usize>i << 2), rotl<u32>(t0, 16));
    store<u32>(TE + 3072 + (<usize>i << 2), rotl<u32>(t0, 24));
  }
}
buildTables();

export function keyPtr(): usize {
  return KEY;
}
export function ivPtr(): usize {
  return IV;
}
export function outPtr(): usize {
  return OUT;
}
export function dataPtr(): usize {
  return DATA;
}
export function dataSize(): usize {
  return DATA_SIZE;
}

// --- key schedule (FIPS-197 §5.2) in little-endian words ---
@inline function subWord(w: u32): u32 {
  return (
    <u32>load<u8>(SBOX + (w & 0xff)) |
    (<u32>load<u8>(SBOX + ((w >> 8) & 0xff)) << 8) |
    (<u32>load<u8>(SBOX + ((w >> 16) & 0xff)) << 16) |
    (<u32>load<u8>(SBOX + (w >> 24)) << 24)
  );
}

function expand(rk: usize, nk: i32, words: i32): void {
  for (let i = 0; i < nk; i++) store<u32>(rk + (<usize>i << 2), load<u32>(KEY + (<usize>i << 2)));
  let rcon: u32 = 1;
  for (let i = nk; i < words; i++) {
    let t = load<u32>(rk + (<usize>(i - 1) << 2));
    if (i % nk == 0) {
      t = subWord(rotr<u32>(t, 8)) ^ rcon;
      rcon = xtime(rcon);
    } else if (nk > 6 && i % nk == 4) {
      t = subWord(t);
    }
    store<u32>(rk + (<usize>i << 2), load<u32>(rk + (<usize>(i - nk) << 2)) ^ t);
  }
}

export function expand256(): void {
  expand(RK256, 8, 60);
}

export function expand128(): void {
  expand(RK128, 4, 44);
}

// --- one block ---
@inline function te(t: usize, b: u32): u32 {
  return load<u32>(TE + t + (<usize>b << 2));
}
@inline function sb(b: u32): u32 {
  return <u32>load<u8>(SBOX + b);
}

// Encrypts the block s0..s3 with `rounds` rounds of keys at rk; result in o0..o3.
let o0: u32 = 0, o1: u32 = 0, o2: u32 = 0, o3: u32 = 0;

@inline function encrypt(rk: usize, rounds: i32, a0: u32, a1: u32, a2: u32, a3: u32): void {
  let s0 = a0 ^ load<u32>(rk), s1 = a1 ^ load<u32>(rk, 4), s2 = a2 ^ load<u32>(rk, 8), s3 = a3 ^ load<u32>(rk, 12);
  let k = rk + 16;
  for (let r = 1; r < rounds; r++) {
    const t0 = te(0, s0 & 0xff) ^ te(1024, (s1 >> 8) & 0xff) ^ te(2048, (s2 >> 16) & 0xff) ^ te(3072, s3 >> 24) ^ load<u32>(k);
    const t1 = te(0, s1 & 0xff) ^ te(1024, (s2 >> 8) & 0xff) ^ te(2048, (s3 >> 16) & 0xff) ^ te(3072, s0 >> 24) ^ load<u32>(k, 4);
    const t2 = te(0, s2 & 0xff) ^ te(1024, (s3 >> 8) & 0xff) ^ te(2048, (s0 >> 16) & 0xff) ^ te(3072, s1 >> 24) ^ load<u32>(k, 8);
    const t3 = te(0, s3 & 0xff) ^ te(1024, (s0 >> 8) & 0xff) ^ te(2048, (s1 >> 16) & 0xff) ^ te(3072, s2 >> 24) ^ load<u32>(k, 12);
    s0 = t0;
    s1 = t1;
    s2 = t2;
    s3 = t3;
    k += 16;
  }
  o0 = (sb(s0 & 0xff) | (sb((s1 >> 8) & 0xff) << 8) | (sb((s2 >> 16) & 0xff) << 16) | (sb(s3 >> 24) << 24)) ^ load<u32>(k);
  o1 = (sb(s1 & 0xff) | (sb((s2 >> 8) & 0xff) << 8) | (sb((s3 >> 16) & 0xff) << 16) | (sb(s0 >> 24) << 24)) ^ load<u32>(k, 4);
  o2 = (sb(s2 & 0xff) | (sb((s3 >> 8) & 0xff) << 8) | (sb((s0 >> 16) & 0xff) << 16) | (sb(s1 >> 24) << 24)) ^ load<u32>(k, 8);
  o3 = (sb(s3 & 0xff) | (sb((s0 >> 8) & 0xff) << 8) | (sb((s1 >> 16) & 0xff) << 16) | (sb(s2 >> 24) << 24)) ^ load<u32>(k, 12);
}

/** AES-128-encrypts the block at ivPtr() into outPtr() (Poly1305-AES's s = AES_k(nonce)). */
export function block128(): void {
  encrypt(RK128, 10, load<u32>(IV), load<u32>(IV, 4), load<u32>(IV, 8), load<u32>(IV, 12));
  store<u32>(OUT, o0);
  store<u32>(OUT, o1, 4);
  store<u32>(OUT, o2, 8);
  store<u32>(OUT, o3, 12);
}

/** XORs the AES-256-CTR keystream into data[0..len) and advances the counter at ivPtr(). */
export function ctr(len: usize): void {
  // The counter as two big-endian u64 halves, incremented with carry.
  let hi = bswap<u64>(load<u64>(IV));
  let lo = bswap<u64>(load<u64>(IV, 8));
  let p = DATA;
  const end = DATA + len;
  while (p < end) {
    const bh = bswap<u64>(hi), bl = bswap<u64>(lo);
    encrypt(RK256, 14, <u32>bh, <u32>(bh >> 32), <u32>bl, <u32>(bl >> 32));
    if (end - p >= 16) {
      store<u32>(p, load<u32>(p) ^ o0);
      store<u32>(p, load<u32>(p, 4) ^ o1, 4);
      store<u32>(p, load<u32>(p, 8) ^ o2, 8);
      store<u32>(p, load<u32>(p, 12) ^ o3, 12);
    } else {
      store<u32>(OUT, o0);
      store<u32>(OUT, o1, 4);
      store<u32>(OUT, o2, 8);
      store<u32>(OUT, o3, 12);
      for (let i: usize = 0; p + i < end; i++) store<u8>(p + i, load<u8>(p + i) ^ load<u8>(OUT + i));
    }
    p += 16;
    lo += 1;
    if (lo == 0) hi += 1;
  }
  store<u64>(IV, bswap<u64>(hi));
  store<u64>(IV, bswap<u64>(lo), 8);
}
