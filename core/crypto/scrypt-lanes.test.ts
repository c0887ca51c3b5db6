import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mixInGroups, romixLanes, scryptLanes, touchLanes, type MixLanes } from './scrypt-lanes';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const here = async (lanes: Uint8Array[], N: number, r: number) => romixLanes(lanes, N, r);
const enc = (s: string) => new TextEncoder().encode(s);

describe('scrypt split at its lanes', () => {
  it('gives RFC 7914 §12 test vectors', async () => {
    expect(hex(await scryptLanes(enc(''), enc(''), 16, 1, 1, 64, here))).toBe(
      '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
    );
    expect(hex(await scryptLanes(enc('password'), enc('NaCl'), 1024, 8, 16, 64, here))).toBe(
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
    );
  });

  it("equals Node's scrypt for restic-shaped parameters, lanes mixed in any grouping", async () => {
    const salt = Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 255);
    for (const [N, r, p] of [
      [32768, 8, 3],
      [2048, 4, 5],
      [4096, 8, 1],
    ] as const) {
      const want = hex(scryptSync(enc('pässwörd'), salt, 64, { N, r, p, maxmem: 256 * N * r + (64 << 20) }));
      // Lanes in two groups, put back in place: what the KDF workers do.
      const grouped = (lanes: Uint8Array[], n: number, rr: number) => mixInGroups(lanes, n, rr, 2, here);
      expect(hex(await scryptLanes(enc('pässwörd'), salt, N, r, p, 64, grouped)), `N=${N} r=${r} p=${p}`).toBe(want);
    }
  });

  it('mixes the same after its memory was made ready, and refuses memory it cannot have', async () => {
    const want = hex(scryptSync(enc('pw'), enc('salt'), 64, { N: 4096, r: 8, p: 2 }));
    expect(touchLanes(4096, 8)).toBe(true);
    expect(hex(await scryptLanes(enc('pw'), enc('salt'), 4096, 8, 2, 64, here))).toBe(want);
    expect(touchLanes(2 ** 30, 8)).toBe(false);
  });

  it('refuses lanes that come back lost or the wrong size', async () => {
    await expect(scryptLanes(enc('pw'), enc('salt'), 16, 1, 2, 64, async (l) => l.slice(1))).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(scryptLanes(enc('pw'), enc('salt'), 16, 1, 1, 64, async () => [new Uint8Array(3)])).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('mixes lanes in groups and answers them in their order, whichever group finishes first', async () => {
    const lanes = [1, 2, 3, 4, 5].map((n) => new Uint8Array([n]));
    const seen: number[][] = [];
    const slowFirst: MixLanes = async (group) => {
      seen.push(group.map((l) => l[0]!));
      if (group[0]![0] === 1) await new Promise((r) => setTimeout(r, 5));
      return group.map((l) => new Uint8Array([l[0]! * 10]));
    };
    expect((await mixInGroups(lanes, 16, 1, 2, slowFirst)).map((l) => l[0])).toEqual([10, 20, 30, 40, 50]);
    expect(seen).toEqual([
      [1, 3, 5],
      [2, 4],
    ]);
    expect(await mixInGroups(lanes.slice(0, 1), 16, 1, 4, slowFirst)).toHaveLength(1);
  });
});
