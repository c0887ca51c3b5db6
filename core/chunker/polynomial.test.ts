import { describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { CairnError } from '../errors';
import { deg, formatPol, isIrreducible, parsePol, polGcd, polMod, polMulMod, randomPolynomial, type Pol } from './polynomial';

/** Carry-less product (no reduction), for building reducible polynomials. */
function clmul(a: Pol, b: Pol): Pol {
  let r = 0n;
  for (let i = 0n; b >> i; i++) if ((b >> i) & 1n) r ^= a << i;
  return r;
}

/** A deterministic randomBytes for randomPolynomial. */
function seededSource(seed: number): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => seededBytes(seed * 1_000_003 + counter++, n);
}

describe('polynomial', () => {
  it('parses and formats the config hex form', () => {
    expect(parsePol('3da3358b4dc173')).toBe(0x3da3358b4dc173n);
    expect(parsePol('3DA3358B4DC173')).toBe(0x3da3358b4dc173n);
    expect(parsePol('0x3DA3358B4DC173')).toBe(0x3da3358b4dc173n);
    expect(parsePol('ffffffffffffffff')).toBe(0xffffffffffffffffn);
    expect(formatPol(0x3da3358b4dc173n)).toBe('3da3358b4dc173');
    expect(formatPol(parsePol('25b468838dcb75'))).toBe('25b468838dcb75');
  });

  it.each(['', '0x', 'xyz', '-1', '12 34', '1ffffffffffffffff', '3da3358b4dc173\n'])('rejects %j', (s) => {
    expect(() => parsePol(s)).toThrow(CairnError);
  });

  it.each([
    [0n, -1],
    [1n, 0],
    [2n, 1],
    [0x3af4b284899n, 41],
    [0x3da3358b4dc173n, 53],
    [0x8000000000000000n, 63],
  ])('deg(%s) = %i', (p, d) => {
    expect(deg(p)).toBe(d);
  });

  // restic/chunker polynomials_test.go: GCD and MulMod tables.
  it.each([
    [10n, 50n, 2n],
    [0n, 1n, 1n],
    [0b101101001n, 0b1010n, 1n],
    [2n, 2n, 2n],
    [0b1010n, 0b11n, 0b11n],
    [0x8000000000000000n, 0x8000000000000000n, 0x8000000000000000n],
    [0b1100n, 0b101n, 0b11n],
    [0b1100001111n, 0b10011n, 0b10011n],
    [0x3da3358b4dc173n, 0x3da3358b4dc173n, 0x3da3358b4dc173n],
    [0x3da3358b4dc173n, 0x230d2259defdn, 1n],
    [0x230d2259defdn, 0x51b492b3eff2n, 0b10011n],
  ])('gcd(%s, %s) = %s', (a, b, g) => {
    expect(polGcd(a, b)).toBe(g);
    expect(polGcd(b, a)).toBe(g);
  });

  it('multiplies modulo a polynomial like restic', () => {
    expect(polMulMod(0x1230n, 0x230n, 0x55n)).toBe(0x22n);
    expect(polMulMod(0x0eae8c07dbbb3026n, 0xd5d6db9de04771den, 0xdd2bda3b77c9n)).toBe(0x425ae8595b7an);
    expect(polMod(0b101101000n, 0b1010n)).toBe(0b0n);
  });

  // restic/chunker polynomials_test.go: polIrredTests.
  it.each([
    [0x38f1e565e288dfn, false],
    [0x3da3358b4dc173n, true],
    [0x30a8295b9d5c91n, false],
    [0x255f4350b962cbn, false],
    [0x267f776110a235n, false],
    [0x2f4dae10d41227n, false],
    [0x2482734cacca49n, true],
    [0x312daf4b284899n, false],
    [0x29dfb6553d01d1n, false],
    [0x3548245eb26257n, false],
    [0x3199e7ef4211b3n, false],
    [0x362f39017dae8bn, false],
    [0x200d57aa6fdacbn, false],
    [0x35e0a4efa1d275n, false],
    [0x2ced55b026577fn, false],
    [0x260b012010893dn, false],
    [0x2df29cbcd59e9dn, false],
    [0x3f2ac7488bd429n, false],
    [0x3e5cb1711669fbn, false],
    [0x226d8de57a9959n, false],
    [0x3c8de80aaf5835n, false],
    [0x2026a59efb219bn, false],
    [0x39dfa4d13fb231n, false],
    [0x3143d0464b3299n, false],
  ])('isIrreducible(%s) = %s', (p, irreducible) => {
    expect(isIrreducible(p)).toBe(irreducible);
  });

  it('knows small cases', () => {
    expect(isIrreducible(0b10n)).toBe(true); // x
    expect(isIrreducible(0b11n)).toBe(true); // x + 1
    expect(isIrreducible(0b111n)).toBe(true); // x^2 + x + 1
    expect(isIrreducible(0b101n)).toBe(false); // (x + 1)^2
    expect(isIrreducible(0b1011n)).toBe(true); // x^3 + x + 1
    expect(isIrreducible(0n)).toBe(false);
    expect(isIrreducible(1n)).toBe(false);
  });

  it('finds products of two polynomials reducible', () => {
    const factors: Pol[] = [0x3da3358b4dc173n, 0x2482734cacca49n, 0b1011n, 0b111n, 0b11n];
    for (const a of factors) {
      for (const b of factors) {
        if (deg(a) + deg(b) > 62) continue;
        expect(isIrreducible(clmul(a, b))).toBe(false);
      }
    }
    // and products of random degree-20 and degree-33 polynomials
    const rnd = seededSource(3);
    for (let i = 0; i < 20; i++) {
      const a = (BigInt.asUintN(20, BigInt(`0x${formatHex(rnd(3))}`)) | (1n << 20n)) as Pol;
      const b = (BigInt.asUintN(33, BigInt(`0x${formatHex(rnd(5))}`)) | (1n << 33n)) as Pol;
      const p = clmul(a, b);
      expect(deg(p)).toBe(53);
      expect(isIrreducible(p)).toBe(false);
    }
  });

  it('draws random irreducible polynomials of degree 53 like restic', () => {
    const seen = new Set<Pol>();
    for (let seed = 1; seed <= 6; seed++) {
      const p = randomPolynomial(seededSource(seed));
      expect(deg(p)).toBe(53);
      expect(p & 1n).toBe(1n);
      expect(isIrreducible(p)).toBe(true);
      expect(parsePol(formatPol(p))).toBe(p);
      seen.add(p);
    }
    expect(seen.size).toBe(6);
    // the construction: 8 bytes little-endian, bits 54.. dropped, bits 53 and 0 set
    const fixed = randomPolynomial(() => Uint8Array.of(0x72, 0xc1, 0x4d, 0x8b, 0x35, 0xa3, 0xfd, 0xff));
    expect(fixed).toBe(0x3da3358b4dc173n);
  });
});

function formatHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
