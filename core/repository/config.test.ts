import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, resticFixture, TEST_POL } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { isIrreducible, parsePol } from '../chunker/polynomial';
import { decodeConfig, encodeConfig, newConfig } from './config';

const ID = 'ab'.repeat(32);

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isCairnError(e) ? e.code : 'UNCODED';
  }
  return undefined;
}

describe('config', () => {
  beforeAll(initEngine);

  it('newConfig makes a v2 config with a random ID and a random irreducible degree-53 polynomial', () => {
    const a = newConfig(),
      b = newConfig();
    expect(a.version).toBe(2);
    expect(a.id).toMatch(/^[0-9a-f]{64}$/);
    expect(a.id).not.toBe(b.id);
    expect(isIrreducible(a.chunkerPolynomial)).toBe(true);
    expect(a.chunkerPolynomial.toString(2).length).toBe(54);
    expect(a.chunkerPolynomial).not.toBe(b.chunkerPolynomial);
    expect(newConfig(1, TEST_POL)).toMatchObject({ version: 1, chunkerPolynomial: TEST_POL });
  });

  it('encodes in restic field order with a lower-case hex polynomial', () => {
    expect(encodeConfig({ version: 2, id: ID, chunkerPolynomial: TEST_POL })).toBe(`{"version":2,"id":"${ID}","chunker_polynomial":"3da3358b4dc173"}`);
  });

  it('round-trips, and reads the config restic 0.14 wrote', () => {
    const c = { version: 1, id: ID, chunkerPolynomial: TEST_POL };
    expect(decodeConfig(JSON.parse(encodeConfig(c)))).toEqual(c);
    const fx = resticFixture();
    expect(decodeConfig(fx.config)).toEqual({ version: 2, id: fx.config.id, chunkerPolynomial: parsePol(fx.config.chunker_polynomial) });
  });

  it('accepts an upper-case polynomial (Go ParseUint base 16) and ignores unknown fields', () => {
    expect(decodeConfig({ version: 2, id: ID, chunker_polynomial: '3DA3358B4DC173', extra: true }).chunkerPolynomial).toBe(TEST_POL);
  });

  it.each([
    ['not an object', null],
    ['an array', []],
    ['version 0', { version: 0, id: ID, chunker_polynomial: '3da3358b4dc173' }],
    ['version 3', { version: 3, id: ID, chunker_polynomial: '3da3358b4dc173' }],
    ['version 1.5', { version: 1.5, id: ID, chunker_polynomial: '3da3358b4dc173' }],
    ['version as a string', { version: '2', id: ID, chunker_polynomial: '3da3358b4dc173' }],
    ['version missing', { id: ID, chunker_polynomial: '3da3358b4dc173' }],
    ['id missing', { version: 2, chunker_polynomial: '3da3358b4dc173' }],
    ['polynomial missing', { version: 2, id: ID }],
    ['polynomial as a number', { version: 2, id: ID, chunker_polynomial: 123456789 }],
    ['polynomial not hex', { version: 2, id: ID, chunker_polynomial: 'xyz' }],
    ['polynomial of 17 hex digits', { version: 2, id: ID, chunker_polynomial: '1' + '0'.repeat(16) }],
    ['reducible polynomial', { version: 2, id: ID, chunker_polynomial: '3da3358b4dc172' }],
    ['zero polynomial', { version: 2, id: ID, chunker_polynomial: '0' }],
  ])('refuses %s with BAD_CONFIG', (_what, json) => {
    expect(codeOf(() => decodeConfig(json))).toBe('BAD_CONFIG');
  });
});
