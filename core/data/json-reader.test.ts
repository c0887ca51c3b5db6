import { describe, expect, it } from 'vitest';
import { JsonNumber, JsonSyntaxError, parseJson } from './json-reader';

describe('parseJson', () => {
  it('keeps numbers as text so uint64 values survive', () => {
    const v = parseJson('{"inode":18446744073709551615,"f":-1.5e-3}') as Map<string, unknown>;
    expect(v.get('inode')).toEqual(new JsonNumber('18446744073709551615'));
    expect((v.get('f') as JsonNumber).text).toBe('-1.5e-3');
  });

  it('keeps key order; a duplicate key wins with the later value', () => {
    const v = parseJson('{"b":1,"a":2,"b":3}') as Map<string, JsonNumber>;
    expect([...v.entries()].map(([k, n]) => `${k}=${n.text}`)).toEqual(['a=2', 'b=3']);
  });

  it.each([
    ['"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'],
    ['"\\u00e9\\u003C"', '\u00e9<'],
    ['"\\ud83d\\ude00"', '\u{1F600}'], // surrogate pair
    ['"\\ud83dx"', '\ufffdx'], // lone high surrogate → U+FFFD, as Go
    ['"\\ude00\\ud83d\\ude00"', '\ufffd\u{1F600}'], // lone low, then a pair
    ['"\\ud83d\\u0041"', '\ufffdA'], // high + non-surrogate escape: both kept apart
    ['"\u2028\x7f"', '\u2028\x7f'],
  ])('decodes the string %s as Go does', (json, text) => {
    expect(parseJson(json)).toBe(text);
  });

  it('replaces each invalid UTF-8 byte of the input with U+FFFD', () => {
    expect(parseJson(Uint8Array.from([0x22, 0x61, 0xff, 0xfe, 0x22]))).toBe('a\ufffd\ufffd');
  });

  it('reads nested structures and whitespace', () => {
    const v = parseJson(' {\n\t"a" : [ true , false , null , { } , [ ] ] }\r\n');
    expect(v).toEqual(new Map([['a', [true, false, null, new Map(), []]]]));
  });

  it.each([
    ['empty input', ''],
    ['trailing comma in object', '{"a":1,}'],
    ['trailing comma in array', '[1,]'],
    ['raw control character in string', '"a\tb"'],
    ['bad escape', '"\\x41"'],
    ['short \\u escape', '"\\u12"'],
    ['leading zero', '01'],
    ['bare fraction', '.5'],
    ['plus sign', '+1'],
    ['single quotes', "{'a':1}"],
    ['unquoted key', '{a:1}'],
    ['trailing data', '{} {}'],
    ['byte order mark', '\ufeff{}'],
    ['unterminated string', '"abc'],
    ['NaN', 'NaN'],
    ['deep nesting', '['.repeat(2000) + ']'.repeat(2000)],
  ])('rejects %s', (_what, json) => {
    expect(() => parseJson(json)).toThrow(JsonSyntaxError);
  });
});
