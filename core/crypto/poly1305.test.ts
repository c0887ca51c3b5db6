import { describe, expect, it } from 'vitest';
import { prng, seededBytes } from '../../test/fixtures/chunker/generate';
import { poly1305, tagsEqual } from './poly1305';

const hex = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, '').match(/../g) ?? [], (b) => parseInt(b, 16));
const toHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Slow and obviously right: RFC 8439 §2.5.1 with BigInt. */
function referencePoly1305(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const le = (b: Uint8Array): bigint => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
  const p = (1n << 130n) - 5n;
  const r = le(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = le(key.subarray(16, 32));
  let acc = 0n;
  for (let i = 0; i < msg.length; i += 16) {
    const block = msg.subarray(i, i + 16);
    const n = le(block) + (1n << BigInt(8 * block.length));
    acc = ((acc + n) * r) % p;
  }
  let tag = (acc + s) & ((1n << 128n) - 1n);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++, tag >>= 8n) out[i] = Number(tag & 0xffn);
  return out;
}

const IETF_TEXT =
  'Any submission to the IETF intended by the Contributor for publication as all or part of an IETF ' +
  'Internet-Draft or RFC and any statement made within the context of an IETF activity is considered an ' +
  '"IETF Contribution". Such statements include oral statements in IETF sessions, as well as written and ' +
  'electronic communications made at any time or place, which are addressed to';
const JABBERWOCKY = "'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\nAll mimsy were the borogoves,\nAnd the mome raths outgrabe.";

// RFC 8439 §2.5.2 and Appendix A.3 (#1–#11).
const VECTORS: Array<[name: string, key: string, msg: Uint8Array, tag: string]> = [
  [
    '§2.5.2',
    '85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b',
    text('Cryptographic Forum Research Group'),
    'a8061dc1305136c6c22b8baf0c0127a9',
  ],
  ['A.3 #1', '00'.repeat(32), new Uint8Array(64), '00'.repeat(16)],
  ['A.3 #2', '00'.repeat(16) + '36e5f6b5c5e06070f0efca96227a863e', text(IETF_TEXT), '36e5f6b5c5e06070f0efca96227a863e'],
  ['A.3 #3', '36e5f6b5c5e06070f0efca96227a863e' + '00'.repeat(16), text(IETF_TEXT), 'f3477e7cd95417af89a6b8794c310cf0'],
  ['A.3 #4', '1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0', text(JABBERWOCKY), '4541669a7eaaee61e708dc7cbcc5eb62'],
  ['A.3 #5', '02' + '00'.repeat(31), hex('ff'.repeat(16)), '03' + '00'.repeat(15)],
  ['A.3 #6', '02' + '00'.repeat(15) + 'ff'.repeat(16), hex('02' + '00'.repeat(15)), '03' + '00'.repeat(15)],
  ['A.3 #7', '01' + '00'.repeat(31), hex('ff'.repeat(16) + 'f0' + 'ff'.repeat(15) + '11' + '00'.repeat(15)), '05' + '00'.repeat(15)],
  ['A.3 #8', '01' + '00'.repeat(31), hex('ff'.repeat(16) + 'fb' + 'fe'.repeat(15) + '01'.repeat(16)), '00'.repeat(16)],
  ['A.3 #9', '02' + '00'.repeat(31), hex('fd' + 'ff'.repeat(15)), 'fa' + 'ff'.repeat(15)],
  [
    'A.3 #10',
    '0100000000000000040000000000000000000000000000000000000000000000',
    hex('e33594d7505e43b90000000000000000 3394d7505e4379cd0100000000000000 00000000000000000000000000000000 01000000000000000000000000000000'),
    '14000000000000005500000000000000',
  ],
  [
    'A.3 #11',
    '0100000000000000040000000000000000000000000000000000000000000000',
    hex('e33594d7505e43b90000000000000000 3394d7505e4379cd0100000000000000 00000000000000000000000000000000'),
    '13000000000000000000000000000000',
  ],
];

describe('poly1305', () => {
  it.each(VECTORS)('matches RFC 8439 %s', (_name, key, msg, tag) => {
    expect(toHex(poly1305(hex(key), msg))).toBe(tag);
    expect(toHex(referencePoly1305(hex(key), msg))).toBe(tag);
  });

  const MiB = 1 << 20;
  const lengths = [
    0,
    1,
    2,
    15,
    16,
    17,
    31,
    32,
    33,
    47,
    48,
    49,
    63,
    64,
    65,
    100,
    255,
    256,
    1000,
    4095,
    4096,
    65537,
    MiB - 17,
    MiB - 16,
    MiB - 1,
    MiB,
    MiB + 1,
    MiB + 15,
    MiB + 16,
    MiB + 17,
    MiB + 33,
    2 * MiB,
    2 * MiB + 31,
    5 * MiB + 3,
  ];
  it.each(lengths)('agrees with the BigInt reference on %i random bytes', (len) => {
    const key = seededBytes(len ^ 0x5eed, 32);
    const msg = seededBytes(len + 1, len);
    expect(toHex(poly1305(key, msg))).toBe(toHex(referencePoly1305(key, msg)));
  });

  it('agrees on many short messages with random keys, including all-0xff limbs', () => {
    const next = prng(77);
    for (let i = 0; i < 400; i++) {
      const len = next() % 200;
      const key = seededBytes(next(), 32);
      const msg = i % 4 === 0 ? new Uint8Array(len).fill(0xff) : seededBytes(next(), len);
      if (i % 8 === 0) key.fill(0xff, 0, 16); // r with every clampable bit set
      expect(toHex(poly1305(key, msg))).toBe(toHex(referencePoly1305(key, msg)));
    }
  });

  it('clamps r itself and ignores the clamped-away bits', () => {
    const msg = seededBytes(10, 333);
    const key = seededBytes(9, 32).fill(0xff, 0, 16); // every bit of r set
    const mask = hex('ffffff0ffcffff0ffcffff0ffcffff0f'); // RFC 8439 clamp, little-endian
    const clamped = key.slice();
    for (let i = 0; i < 16; i++) clamped[i] = key[i]! & mask[i]!;
    expect(toHex(poly1305(key, msg))).toBe(toHex(poly1305(clamped, msg)));
    expect(toHex(poly1305(key, msg))).not.toBe(toHex(poly1305(seededBytes(9, 32), msg)));
  });

  it('reads views at an offset and leaves its inputs alone', () => {
    const backing = seededBytes(11, 4096);
    const key = backing.subarray(7, 39);
    const msg = backing.subarray(101, 3000);
    const before = backing.slice();
    expect(toHex(poly1305(key, msg))).toBe(toHex(referencePoly1305(key.slice(), msg.slice())));
    expect(backing).toEqual(before);
  });

  it('rejects keys of the wrong size', () => {
    expect(() => poly1305(new Uint8Array(16), new Uint8Array(1))).toThrow(/32 bytes/);
  });

  it('compares tags', () => {
    expect(tagsEqual(hex('00ff'), hex('00ff'))).toBe(true);
    expect(tagsEqual(hex('00ff'), hex('01ff'))).toBe(false);
    expect(tagsEqual(hex('00'), hex('0000'))).toBe(false);
  });
});
