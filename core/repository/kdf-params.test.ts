import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { calibrateKdf, DEFAULT_KDF, validateKdfParams, type KdfParams } from './kdf-params';

/** A machine where scrypt takes `msPer` ms per 2^15·8 units of work, the first run `firstFactor` times as long. */
function machine(msPer: number, firstFactor = 1) {
  let clock = 0;
  const runs: KdfParams[] = [];
  return {
    runs,
    now: () => clock,
    run: async (p: KdfParams) => {
      clock += ((msPer * p.N * p.r * p.p) / (32768 * 8)) * (runs.length === 0 ? firstFactor : 1);
      runs.push({ ...p });
    },
  };
}

describe('calibrateKdf (simple-scrypt Calibrate, as restic calls it: 500 ms, 60 MiB)', () => {
  it('keeps N = 2^15 (60 MiB) and r = 8, and scales p to the time: p = 7 where a run takes 70 ms (restic here: 5–7)', async () => {
    const m = machine(70);
    expect(await calibrateKdf(m.run, { now: m.now })).toEqual({ N: 32768, r: 8, p: 7 });
  });

  it('does not let a slow first run (fresh memory) halve p', async () => {
    const m = machine(70, 3);
    expect(await calibrateKdf(m.run, { now: m.now })).toEqual({ N: 32768, r: 8, p: 7 });
  });

  it('halves N while one run is slower than the target (a slow machine)', async () => {
    const m = machine(1600);
    expect(await calibrateKdf(m.run, { now: m.now })).toEqual({ N: 8192, r: 8, p: 1 });
  });

  it('stops at the work limit on a machine too fast for it, so its keys open elsewhere', async () => {
    const m = machine(0.5);
    expect(await calibrateKdf(m.run, { now: m.now })).toEqual({ N: 32768, r: 8, p: 256 });
  });
});

describe('validateKdfParams', () => {
  it("accepts what restic and rustic write, and the app's floor", () => {
    for (const p of [DEFAULT_KDF, { N: 32768, r: 8, p: 25 }, { N: 65536, r: 8, p: 1 }, { N: 131072, r: 8, p: 1 }, { N: 32768, r: 8, p: 256 }])
      expect(() => validateKdfParams(p, 'k'), JSON.stringify(p)).not.toThrow();
  });

  it.each([
    [{ N: 32768, r: 8, p: 257 }, 'more work than 256 times a restic key'],
    [{ N: 2 ** 20, r: 8, p: 16 }, 'more work than 256 times a restic key'],
    [{ N: 2 ** 21, r: 8, p: 1 }, 'N must be a power of two up to 2^20'],
    [{ N: 2 ** 20, r: 16, p: 1 }, 'more than 1 GiB of memory'],
    [{ N: 1000, r: 8, p: 1 }, 'N must be a power of two up to 2^20'],
    [{ N: 1024.5, r: 8, p: 1 }, 'not whole numbers'],
  ])('refuses %o: %s', (p, why) => {
    let e: unknown;
    try {
      validateKdfParams(p, 'abcdef0123');
    } catch (x) {
      e = x;
    }
    expect(isCairnError(e, 'BAD_KEY_FILE') && e.message).toBe(`key abcdef01: unsupported scrypt parameters N=${p.N} r=${p.r} p=${p.p} (${why})`);
  });
});
