import { describe, expect, it } from 'vitest';
import { goQuote, goUnquote, GoSyntaxError, isGoPrint } from './go-quote';

const bytes = (...b: number[]) => Uint8Array.from(b);

// [input, strconv.Quote output as go1.19 writes it]; most cases were seen in restic 0.14 trees.
const QUOTE_CASES: [string | Uint8Array, string][] = [
  ['plain name.txt', '"plain name.txt"'],
  ['', '""'],
  ['a"b', '"a\\"b"'],
  ['back\\slash', '"back\\\\slash"'],
  ['\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
  ['ctl\x01\x1b\x00', '"ctl\\x01\\x1b\\x00"'],
  ['del\x7f', '"del\\x7f"'],
  ["<&>'`", '"<&>\'`"'],
  ['caf\u00e9', '"caf\u00e9"'],
  ['cafe\u0301', '"cafe\u0301"'], // combining mark (M) is printable
  ['nbsp\u00a0', '"nbsp\\u00a0"'], // Zs other than U+0020 is not
  ['soft\u00adhyphen', '"soft\\u00adhyphen"'], // Cf
  ['\u2028\u2029', '"\\u2028\\u2029"'],
  ['bom\ufeff', '"bom\\ufeff"'],
  ['\ue000', '"\\ue000"'], // private use
  ['\u3000', '"\\u3000"'],
  ['\u0378', '"\\u0378"'], // unassigned
  ['\ufffd', '"\ufffd"'], // U+FFFD itself is a symbol
  ['\u{1F9CB}', '"\u{1F9CB}"'], // Unicode 13: printable for go1.19
  ['\u{1FAE0}', '"\\U0001fae0"'], // Unicode 14: not yet known to go1.19
  ['\u{E0001}', '"\\U000e0001"'], // tag character (Cf)
  ['\u{10FFFD}', '"\\U0010fffd"'],
  ['\ud800x', '"\ufffdx"'], // lone surrogate behaves like U+FFFD (TextEncoder)
  [bytes(0x62, 0x61, 0x64, 0xff, 0xfe), '"bad\\xff\\xfe"'],
  [bytes(0xed, 0xa0, 0x80), '"\\xed\\xa0\\x80"'], // UTF-8 encoded surrogate: three bad bytes
  [bytes(0xc0, 0x80), '"\\xc0\\x80"'], // overlong
  [bytes(0xf0, 0x9f, 0x98), '"\\xf0\\x9f\\x98"'], // truncated
  [bytes(0xe2, 0x82, 0xac), '"\u20ac"'], // valid bytes go through as text
];

describe('goQuote', () => {
  it.each(QUOTE_CASES)('quotes %j as %s', (input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });
});

describe('goUnquote', () => {
  it.each(QUOTE_CASES.filter(([input]) => input !== '\ud800x'))('turns the quote of %j back into its bytes', (input, quoted) => {
    const expected = typeof input === 'string' ? new TextEncoder().encode(input) : input;
    expect(goUnquote(quoted)).toEqual(expected);
  });

  it.each([
    ['"\\101\\060"', 'A0'], // octal escapes
    ['"\\x41\\u0042\\U00000043"', 'ABC'],
    ['"\\u00E9"', '\u00e9'], // upper-case hex
    ['"raw\ttab"', 'raw\ttab'], // unescaped control characters other than newline are fine
    ['"\u{1F600}"', '\u{1F600}'],
  ])('reads %s', (literal, text) => {
    expect(new TextDecoder().decode(goUnquote(literal))).toBe(text);
  });

  it.each([
    ['no quotes', 'abc'],
    ['unescaped quote', '"a"b"'],
    ['raw newline', '"a\nb"'],
    ['unknown escape', '"\\q"'],
    ['escaped single quote in a double-quoted string', '"\\\'"'],
    ['surrogate escape', '"\\ud800"'],
    ['rune above U+10FFFF', '"\\U00110000"'],
    ['short hex', '"\\x4"'],
    ['octal above 255', '"\\400"'],
    ['short octal', '"\\12"'],
    ['trailing backslash', '"abc\\"'],
    ['single quotes', "'a'"],
  ])('rejects %s', (_what, literal) => {
    expect(() => goUnquote(literal)).toThrow(GoSyntaxError);
  });
});

describe('isGoPrint', () => {
  it.each([
    [0x20, true],
    [0x7e, true],
    [0x7f, false],
    [0xa0, false],
    [0xa1, true],
    [0xad, false],
    [0x0378, false],
    [0x1f9cb, true],
    [0x1fae0, false],
    [0x2ebe0, true], // CJK Ext F, Unicode 10
    [0x30000, true], // CJK Ext G, Unicode 13
    [0x31350, false], // CJK Ext H, Unicode 15
    [0xe0100, true], // variation selector (Mn)
    [0xf0000, false],
  ])('U+%s → %s', (cp, printable) => {
    expect(isGoPrint(cp)).toBe(printable);
  });
});
