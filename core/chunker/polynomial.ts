// Polynomials over GF(2) as restic's chunker.Pol (restic/chunker v0.4.0 polynomials.go):
// bit i is the coefficient of x^i. The repository config stores one as `chunker_polynomial`
// (docs/restic-format.md §4, §13); restic refuses a config whose polynomial is reducible.
// BigInt keeps this simple; it only runs when a repository is created or opened.

import { CairnError } from '../errors';

export type Pol = bigint;

/** Parses the config's hex form (restic: strconv.ParseUint(s, 16, 64)); a 0x prefix is tolerated. */
export function parsePol(hex: string): Pol {
  const digits = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (!/^[0-9a-fA-F]{1,16}$/.test(digits)) {
    throw new CairnError('BAD_CONFIG', `invalid chunker polynomial ${JSON.stringify(hex)}`, { op: 'parsePol' });
  }
  return BigInt('0x' + digits);
}

/** Lower-case hex without prefix, as restic writes it into the config JSON. */
export function formatPol(p: Pol): string {
  return p.toString(16);
}

/** Degree (index of the highest set bit); -1 for the zero polynomial. */
export function deg(p: Pol): number {
  return p === 0n ? -1 : p.toString(2).length - 1;
}

/** x mod m. */
export function polMod(x: Pol, m: Pol): Pol {
  const dm = deg(m);
  if (dm < 0) throw new CairnError('INTERNAL', 'polynomial division by zero', { op: 'polMod' });
  for (let d = deg(x); d >= dm; d = deg(x)) x ^= m << BigInt(d - dm);
  return x;
}

/** a * b mod m (carry-less shift-and-add, reducing as it goes). */
export function polMulMod(a: Pol, b: Pol, m: Pol): Pol {
  const top = 1n << BigInt(deg(m));
  a = polMod(a, m);
  let res = 0n;
  for (; b > 0n; b >>= 1n) {
    if (b & 1n) res ^= a;
    a <<= 1n;
    if (a & top) a ^= m;
  }
  return res;
}

export function polGcd(a: Pol, b: Pol): Pol {
  while (b !== 0n) [a, b] = [b, polMod(a, b)];
  return a;
}

/**
 * Ben-Or's test, as restic's Pol.Irreducible: p is irreducible iff gcd(p, x^(2^i) - x mod p) = 1
 * for i = 1 .. deg(p)/2. (restic recomputes x^(2^i) from x each round; squaring the previous
 * value gives the same numbers faster.) Unlike restic, constants (degree < 1) are not irreducible.
 */
export function isIrreducible(p: Pol): boolean {
  const d = deg(p);
  if (d < 1) return false;
  let x2i: Pol = polMod(2n, p); // x^(2^0)
  for (let i = 1; i <= d / 2; i++) {
    x2i = polMulMod(x2i, x2i, p); // x^(2^i)
    if (polGcd(p, polMod(x2i ^ 2n, p)) !== 1n) return false;
  }
  return true;
}

/**
 * A random irreducible polynomial of degree 53, as restic's chunker.RandomPolynomial: 8 random
 * bytes little-endian, bits above 53 dropped, bits 53 and 0 set, retried until irreducible.
 */
export function randomPolynomial(randomBytes: (n: number) => Uint8Array): Pol {
  for (let attempt = 0; attempt < 1_000_000; attempt++) {
    const b = randomBytes(8);
    let f = 0n;
    for (let i = 7; i >= 0; i--) f = (f << 8n) | BigInt(b[i]!);
    f &= (1n << 54n) - 1n;
    f |= (1n << 53n) | 1n;
    if (isIrreducible(f)) return f;
  }
  throw new CairnError('INTERNAL', 'no irreducible polynomial found', { op: 'randomPolynomial' });
}
