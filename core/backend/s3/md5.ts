// MD5 (RFC 1321) in plain TypeScript, for S3's Content-MD5 header: the server recomputes it
// and rejects a PUT whose body was damaged on the way (400 BadDigest). WebCrypto has no MD5,
// and this runs in workers without any WASM set-up. Not for security, only transport integrity.
// Written out step by step (no helper calls, words in locals): that keeps it as fast as a WASM
// MD5, where a compact loop over tables is several times slower (figures: bench/README.md).

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Runs the compression function over `n` 64-byte blocks of `buf` from `off`, updating `h`. */
function blocks(h: Int32Array, buf: Uint8Array, off: number, n: number): void {
  // Whole-word reads when the bytes are 4-aligned (typed arrays use the platform's byte order).
  const words = LITTLE_ENDIAN && buf.byteOffset % 4 === 0 ? new Int32Array(buf.buffer, buf.byteOffset, buf.length >>> 2) : undefined;
  let a0 = h[0]!;
  let b0 = h[1]!;
  let c0 = h[2]!;
  let d0 = h[3]!;
  for (let blk = 0; blk < n; blk++, off += 64) {
    let x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15: number;
    if (words) {
      const w = off >>> 2;
      x0 = words[w]!;
      x1 = words[w + 1]!;
      x2 = words[w + 2]!;
      x3 = words[w + 3]!;
      x4 = words[w + 4]!;
      x5 = words[w + 5]!;
      x6 = words[w + 6]!;
      x7 = words[w + 7]!;
      x8 = words[w + 8]!;
      x9 = words[w + 9]!;
      x10 = words[w + 10]!;
      x11 = words[w + 11]!;
      x12 = words[w + 12]!;
      x13 = words[w + 13]!;
      x14 = words[w + 14]!;
      x15 = words[w + 15]!;
    } else {
      const le = (o: number) => buf[o]! | (buf[o + 1]! << 8) | (buf[o + 2]! << 16) | (buf[o + 3]! << 24);
      x0 = le(off);
      x1 = le(off + 4);
      x2 = le(off + 8);
      x3 = le(off + 12);
      x4 = le(off + 16);
      x5 = le(off + 20);
      x6 = le(off + 24);
      x7 = le(off + 28);
      x8 = le(off + 32);
      x9 = le(off + 36);
      x10 = le(off + 40);
      x11 = le(off + 44);
      x12 = le(off + 48);
      x13 = le(off + 52);
      x14 = le(off + 56);
      x15 = le(off + 60);
    }
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    // round 1
    a = (a + ((b & c) | (~b & d)) + x0 + -680876936) | 0;
    a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x1 + -389564586) | 0;
    d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x2 + 606105819) | 0;
    c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x3 + -1044525330) | 0;
    b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + ((b & c) | (~b & d)) + x4 + -176418897) | 0;
    a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x5 + 1200080426) | 0;
    d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x6 + -1473231341) | 0;
    c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x7 + -45705983) | 0;
    b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + ((b & c) | (~b & d)) + x8 + 1770035416) | 0;
    a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x9 + -1958414417) | 0;
    d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x10 + -42063) | 0;
    c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x11 + -1990404162) | 0;
    b = (((b << 22) | (b >>> 10)) + c) | 0;
    a = (a + ((b & c) | (~b & d)) + x12 + 1804603682) | 0;
    a = (((a << 7) | (a >>> 25)) + b) | 0;
    d = (d + ((a & b) | (~a & c)) + x13 + -40341101) | 0;
    d = (((d << 12) | (d >>> 20)) + a) | 0;
    c = (c + ((d & a) | (~d & b)) + x14 + -1502002290) | 0;
    c = (((c << 17) | (c >>> 15)) + d) | 0;
    b = (b + ((c & d) | (~c & a)) + x15 + 1236535329) | 0;
    b = (((b << 22) | (b >>> 10)) + c) | 0;
    // round 2
    a = (a + ((b & d) | (c & ~d)) + x1 + -165796510) | 0;
    a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x6 + -1069501632) | 0;
    d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x11 + 643717713) | 0;
    c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x0 + -373897302) | 0;
    b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + ((b & d) | (c & ~d)) + x5 + -701558691) | 0;
    a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x10 + 38016083) | 0;
    d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x15 + -660478335) | 0;
    c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x4 + -405537848) | 0;
    b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + ((b & d) | (c & ~d)) + x9 + 568446438) | 0;
    a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x14 + -1019803690) | 0;
    d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x3 + -187363961) | 0;
    c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x8 + 1163531501) | 0;
    b = (((b << 20) | (b >>> 12)) + c) | 0;
    a = (a + ((b & d) | (c & ~d)) + x13 + -1444681467) | 0;
    a = (((a << 5) | (a >>> 27)) + b) | 0;
    d = (d + ((a & c) | (b & ~c)) + x2 + -51403784) | 0;
    d = (((d << 9) | (d >>> 23)) + a) | 0;
    c = (c + ((d & b) | (a & ~b)) + x7 + 1735328473) | 0;
    c = (((c << 14) | (c >>> 18)) + d) | 0;
    b = (b + ((c & a) | (d & ~a)) + x12 + -1926607734) | 0;
    b = (((b << 20) | (b >>> 12)) + c) | 0;
    // round 3
    a = (a + (b ^ c ^ d) + x5 + -378558) | 0;
    a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x8 + -2022574463) | 0;
    d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x11 + 1839030562) | 0;
    c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x14 + -35309556) | 0;
    b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + (b ^ c ^ d) + x1 + -1530992060) | 0;
    a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x4 + 1272893353) | 0;
    d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x7 + -155497632) | 0;
    c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x10 + -1094730640) | 0;
    b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + (b ^ c ^ d) + x13 + 681279174) | 0;
    a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x0 + -358537222) | 0;
    d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x3 + -722521979) | 0;
    c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x6 + 76029189) | 0;
    b = (((b << 23) | (b >>> 9)) + c) | 0;
    a = (a + (b ^ c ^ d) + x9 + -640364487) | 0;
    a = (((a << 4) | (a >>> 28)) + b) | 0;
    d = (d + (a ^ b ^ c) + x12 + -421815835) | 0;
    d = (((d << 11) | (d >>> 21)) + a) | 0;
    c = (c + (d ^ a ^ b) + x15 + 530742520) | 0;
    c = (((c << 16) | (c >>> 16)) + d) | 0;
    b = (b + (c ^ d ^ a) + x2 + -995338651) | 0;
    b = (((b << 23) | (b >>> 9)) + c) | 0;
    // round 4
    a = (a + (c ^ (b | ~d)) + x0 + -198630844) | 0;
    a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x7 + 1126891415) | 0;
    d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x14 + -1416354905) | 0;
    c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x5 + -57434055) | 0;
    b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + (c ^ (b | ~d)) + x12 + 1700485571) | 0;
    a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x3 + -1894986606) | 0;
    d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x10 + -1051523) | 0;
    c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x1 + -2054922799) | 0;
    b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + (c ^ (b | ~d)) + x8 + 1873313359) | 0;
    a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x15 + -30611744) | 0;
    d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x6 + -1560198380) | 0;
    c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x13 + 1309151649) | 0;
    b = (((b << 21) | (b >>> 11)) + c) | 0;
    a = (a + (c ^ (b | ~d)) + x4 + -145523070) | 0;
    a = (((a << 6) | (a >>> 26)) + b) | 0;
    d = (d + (b ^ (a | ~c)) + x11 + -1120210379) | 0;
    d = (((d << 10) | (d >>> 22)) + a) | 0;
    c = (c + (a ^ (d | ~b)) + x2 + 718787259) | 0;
    c = (((c << 15) | (c >>> 17)) + d) | 0;
    b = (b + (d ^ (c | ~a)) + x9 + -343485551) | 0;
    b = (((b << 21) | (b >>> 11)) + c) | 0;
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  h[0] = a0;
  h[1] = b0;
  h[2] = c0;
  h[3] = d0;
}

/** The 16-byte MD5 digest of `data`. */
export function md5(data: Uint8Array): Uint8Array {
  const h = new Int32Array([0x67452301, -271733879, -1732584194, 0x10325476]);
  const full = data.length >>> 6;
  blocks(h, data, 0, full);
  // Tail: the remaining bytes, 0x80, zeros, then the length in bits as 64-bit little-endian.
  const rest = data.length - full * 64;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(data.subarray(full * 64));
  tail[rest] = 0x80;
  const bits = data.length * 8;
  const lenAt = tail.length - 8;
  const high = Math.floor(bits / 2 ** 32);
  for (let i = 0; i < 4; i++) {
    tail[lenAt + i] = (bits >>> (8 * i)) & 0xff;
    tail[lenAt + 4 + i] = (high >>> (8 * i)) & 0xff;
  }
  blocks(h, tail, 0, tail.length / 64);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = (h[i >>> 2]! >>> (8 * (i & 3))) & 0xff;
  return out;
}
