import jsQR from 'jsqr';
import { describe, expect, it } from 'vitest';
import { alignmentPositions, byteCapacity, encodeQr, formatBits, rsDivisor, rsRemainder, type Ecc, type QrCode } from './qr';

/** The symbol as an RGBA image (4 px a module, a 4-module quiet zone), as a camera would see it. */
function image(qr: QrCode, scale = 4, border = 4): { data: Uint8ClampedArray; width: number } {
  const width = (qr.size + border * 2) * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let y = 0; y < qr.size; y++)
    for (let x = 0; x < qr.size; x++) {
      if (!qr.modules[y]![x]) continue;
      for (let dy = 0; dy < scale; dy++)
        for (let dx = 0; dx < scale; dx++) {
          const o = (((y + border) * scale + dy) * width + (x + border) * scale + dx) * 4;
          data[o] = data[o + 1] = data[o + 2] = 0;
        }
    }
  return { data, width };
}

function decode(qr: QrCode): string | undefined {
  const { data, width } = image(qr);
  return jsQR(data, width, width, { inversionAttempts: 'dontInvert' })?.data;
}

const text = (n: number, seed: number) => {
  let x = seed;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += String.fromCharCode(32 + ((x >>> 16) % 95));
  }
  return s;
};

describe('QR encoder', () => {
  it('encodes a master key that an independent decoder (jsQR) reads back', () => {
    const key = '{"mac":{"k":"0wP2aT5BpTbEtaRyl7cSXw==","r":"fSANCwdHFQd2cq3F2gPODA=="},"encrypt":"GjVsKdH8Bf3cRpQf4lOq4w0o3+Pv0KpW6fZ3y0yS9dQ="}';
    const qr = encodeQr(key);
    expect(qr.ecc).toBe('M');
    expect(decode(qr)).toBe(key);
  });

  it.each(['L', 'M', 'Q', 'H'] as Ecc[])('at level %s, each version up to 15 decodes', (ecc) => {
    for (let ver = 1; ver <= 15; ver++) {
      const s = text(byteCapacity(ver, ecc), ver * 31 + ecc.charCodeAt(0));
      const qr = encodeQr(s, { ecc });
      expect(qr.version, `${ecc} v${ver}`).toBe(ver);
      expect(decode(qr), `${ecc} v${ver}`).toBe(s);
    }
  });

  it('every mask pattern decodes', () => {
    for (let mask = 0; mask < 8; mask++) {
      const s = `mask ${mask}: ${text(60, mask)}`;
      const qr = encodeQr(s, { mask });
      expect(qr.mask).toBe(mask);
      expect(decode(qr), `mask ${mask}`).toBe(s);
    }
  });

  it('larger versions (with version information) decode', () => {
    for (const ver of [20, 27, 32, 40]) {
      const s = text(byteCapacity(ver, 'L'), ver);
      const qr = encodeQr(s, { ecc: 'L' });
      expect(qr.version).toBe(ver);
      expect(decode(qr), `v${ver}`).toBe(s);
    }
  });

  it('UTF-8 text round-trips as bytes', () => {
    const s = 'Schlüssel — 鍵 🔑';
    expect(decode(encodeQr(s))).toBe(s);
  });

  it("matches the standard's worked numbers", () => {
    // ISO 18004 annex C: format information for level M, mask 5 is 100000011001110.
    expect(formatBits('M', 5).toString(2).padStart(15, '0')).toBe('100000011001110');
    // Alignment centres of version 7 and 32 (table E.1).
    expect(alignmentPositions(7)).toEqual([6, 22, 38]);
    expect(alignmentPositions(32)).toEqual([6, 34, 60, 86, 112, 138]);
    // 1-M holds 14 bytes, 40-L 2953.
    expect(byteCapacity(1, 'M')).toBe(14);
    expect(byteCapacity(40, 'L')).toBe(2953);
    // The 10 error-correction codewords of "01234567" in 1-M (ISO 18004 annex I).
    const data = [0x10, 0x20, 0x0c, 0x56, 0x61, 0x80, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11, 0xec, 0x11];
    expect(rsRemainder(data, rsDivisor(10))).toEqual([0xa5, 0x24, 0xd4, 0xc1, 0xed, 0x36, 0xc7, 0x87, 0x2c, 0x55]);
  });

  it('refuses data no version holds', () => {
    expect(() => encodeQr(new Uint8Array(2954), { ecc: 'L' })).toThrow(RangeError);
  });
});
