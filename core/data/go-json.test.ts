import { describe, expect, it } from 'vitest';
import { decodeBase64, goJsonBytes, goJsonString, goJsonStringBytes, goJsonUint, goJsonValue } from './go-json';
import { parseJson } from './json-reader';

describe('goJsonString (go1.19 encoding/json, HTML escaping on)', () => {
  it.each([
    ['plain', '"plain"'],
    ['q"b\\s', '"q\\"b\\\\s"'],
    ['\n\r\t', '"\\n\\r\\t"'],
    ['\b\f', '"\\u0008\\u000c"'], // no short forms before go1.22
    ['\x00\x01\x1f', '"\\u0000\\u0001\\u001f"'],
    ['\x7f', '"\x7f"'], // DEL verbatim
    ['<a href="x">&amp;</a>', '"\\u003ca href=\\"x\\"\\u003e\\u0026amp;\\u003c/a\\u003e"'],
    ['\u2028\u2029', '"\\u2028\\u2029"'],
    ['\u00e9\u{1F600}\ufffd', '"\u00e9\u{1F600}\ufffd"'],
    ['x\udc00y', '"x\ufffdy"'], // lone surrogate: U+FFFD, written verbatim like Go's valid U+FFFD
  ])('encodes %j as %s', (input, json) => {
    expect(goJsonString(input)).toBe(json);
  });

  it('writes each invalid UTF-8 byte as \\ufffd but keeps valid text', () => {
    const b = Uint8Array.from([0x61, 0xff, 0xc3, 0xa9, 0xed, 0xa0, 0x80, 0x3c]);
    expect(goJsonStringBytes(b)).toBe('"a\\ufffd\u00e9\\ufffd\\ufffd\\ufffd\\u003c"');
  });
});

describe('goJsonUint', () => {
  it.each([
    [0, '0'],
    [420, '420'],
    [2147484141, '2147484141'],
    [18446744073709551615n, '18446744073709551615'],
  ])('writes %s', (n, text) => {
    expect(goJsonUint(n)).toBe(text);
  });

  it.each([-1, 1.5, 2 ** 53, -1n, 1n << 64n])('rejects %s', (n) => {
    expect(() => goJsonUint(n)).toThrow(RangeError);
  });
});

describe('[]byte as base64', () => {
  it.each([[[]], [[0]], [[0, 1]], [[0, 1, 2]], [[255, 254, 253, 252]], [[118, 0, 255, 60, 38, 62]]])('matches standard base64 for %j', (arr) => {
    const b = Uint8Array.from(arr);
    const text = goJsonBytes(b);
    expect(text).toBe(`"${Buffer.from(b).toString('base64')}"`);
    expect(decodeBase64(text.slice(1, -1))).toEqual(b);
  });

  it.each(['A', 'AB=', 'A===', 'AB C', 'AB-_', 'AB=C'])('rejects %j', (s) => {
    expect(decodeBase64(s)).toBeUndefined();
  });
});

describe('goJsonValue', () => {
  it('re-encodes parsed JSON compactly, keeping number text and key order', () => {
    const v = parseJson(' { "z" : [1.50, -0, 1e3, 18446744073709551616] , "a":{"<":null,"t":true} } ');
    expect(goJsonValue(v)).toBe('{"z":[1.50,-0,1e3,18446744073709551616],"a":{"\\u003c":null,"t":true}}');
  });
});
