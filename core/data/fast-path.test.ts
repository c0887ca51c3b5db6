// The fast readers and writers (json-cursor, node-reader, snapshot-reader, json-writer,
// GoTime.tryParse, goQuoteBody) are shortcuts: each must give exactly what the reference
// code gives — same values, same property order, same errors. Table-driven edge cases plus
// seeded random perturbations of restic-shaped JSON.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goJsonString } from './go-json';
import { goQuote } from './go-quote';
import { GoTime } from './go-time';
import { JsonCursor } from './json-cursor';
import { JsonNumber } from './json-reader';
import { encodeNode } from './node';
import { readNode } from './node-reader';
import { JsonWriter } from './json-writer';
import { decodeSnapshot, decodeSnapshotStrict } from './snapshot';
import { readSnapshotFast } from './snapshot-reader';
import { decodeTree, decodeTreeStrict } from './tree';
import { utf8DecodeGo, utf8Encode } from './utf8';

function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every property, in order, with types: what "the same result" means here. */
function show(v: unknown): string {
  if (v instanceof GoTime) return `GoTime(${v.sec},${v.nsec},${v.offset})`;
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `bytes[${v.join(',')}]`;
  if (v instanceof JsonNumber) return `num(${v.text})`;
  if (v instanceof Map) return `Map{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${show(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map(show).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}:${show(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? String(v);
}

function outcome(f: () => unknown): string {
  try {
    return show(f());
  } catch (e) {
    return `error ${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
}

const ID = 'c0ffee15'.repeat(8);
const TIME = '"2023-01-02T03:04:05.123456789+02:00"';

// A restic-shaped node as [key, JSON value] pairs.
function baseNode(r: () => number, i: number): [string, string][] {
  const type = ['file', 'file', 'file', 'dir', 'symlink', 'chardev', 'fifo'][Math.floor(r() * 7)]!;
  const fields: [string, string][] = [
    ['name', `"n${i}"`],
    ['type', `"${type}"`],
    ['mode', String(type === 'dir' ? 2147484141 : 420)],
    ['mtime', TIME],
    ['atime', r() < 0.5 ? TIME : '"2023-01-02T01:04:05Z"'],
    ['ctime', TIME],
    ['uid', '1000'],
    ['gid', '100'],
    ['user', '"alice"'],
    ['group', '"staff"'],
    ['inode', String(1000 + i)],
    ['device_id', '2049'],
  ];
  if (type === 'file') fields.push(['size', String(i * 7)]);
  fields.push(['links', '1']);
  if (type === 'symlink') fields.push(['linktarget', '"../target"']);
  if (type === 'chardev') fields.push(['device', '259']);
  fields.push(['content', type === 'file' ? (r() < 0.3 ? '[]' : `["${ID}"]`) : 'null']);
  if (type === 'dir') fields.push(['subtree', `"${ID}"`]);
  return fields;
}

const VALUE_VARIANTS = [
  'null',
  '0',
  '1',
  '-1',
  '-0',
  '1.0',
  '1e3',
  '01',
  '4294967295',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  '""',
  '"x"',
  '[]',
  '{}',
  'true',
  `"${ID}"`,
  `"${ID.toUpperCase()}"`,
  `["${ID}","${ID}"]`,
  `[null]`,
  '["00"]',
  TIME,
  '"2023-01-02T03:04:05,5Z"',
  '"2023-02-29T00:00:00Z"',
  '"2023-01-02T03:04:05+24:00"',
  '"yesterday"',
  '"a\\\\b"',
  '"\\u003c"',
  '"\\ud800"',
  '"\\"q\\""',
  '"tab\\there"',
  '"\u00e9\u65e5"',
  '"Yf8="',
  '"!"',
  '[{"name":"user.a","value":"AQ=="}]',
  '[{"value":null,"name":"x"}]',
  '[{"name":"a","value":"AQ==","extra":1}]',
  '{"windows.a":true}',
];

const NAME_VARIANTS = [
  '"plain"',
  '"caf\u00e9"',
  '"\\\\x41"',
  '"a\\\\\\"b"',
  '"back\\\\\\\\slash"',
  '"\\\\U0001fae0"',
  '"\\u003chtml\\u003e"',
  '"tab\\\\t"',
  '"bad\\\\q"',
  '"raw\\"quote"',
  '"\\ud83d\\ude00"',
  '"\\ud83d"',
  '""',
  '"\u2028"',
  '"\\\\xff\\\\xfe"',
];

function mutate(r: () => number, fields: [string, string][]): { fields: [string, string][]; ws: boolean } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const at = Math.floor(r() * fields.length);
  let ws = false;
  switch (Math.floor(r() * 9)) {
    case 0:
      fields[at]![1] = pick(VALUE_VARIANTS);
      break;
    case 1:
      fields[0]![1] = pick(NAME_VARIANTS);
      break;
    case 2:
      fields.splice(at, 1);
      break;
    case 3:
      fields.splice(at, 0, [
        pick(['future', 'Name', 'SIZE', 'name', 'generic_attributes', 'extended_attributes', 'linktarget_raw', 'error']),
        pick(VALUE_VARIANTS),
      ]);
      break;
    case 4: {
      const j = Math.floor(r() * fields.length);
      [fields[at], fields[j]] = [fields[j]!, fields[at]!];
      break;
    }
    case 5:
      fields.push([fields[at]![0], pick(VALUE_VARIANTS)]);
      break;
    case 6:
      ws = true;
      break;
    default:
      break; // unchanged
  }
  return { fields, ws };
}

const nodeText = ({ fields, ws }: { fields: [string, string][]; ws: boolean }) => '{' + fields.map(([k, v]) => `"${k}":${ws ? ' ' : ''}${v}`).join(',') + '}';

describe('decodeTree fast path agrees with the strict reader', () => {
  it('on restic-shaped trees with seeded perturbations', () => {
    const r = rng(7);
    let differences = 0;
    for (let t = 0; t < 3000; t++) {
      const count = 1 + Math.floor(r() * 4);
      const nodes = Array.from({ length: count }, (_, i) => nodeText(mutate(r, baseNode(r, i))));
      const text = `{"nodes":[${nodes.join(',')}]}\n`;
      const strict = outcome(() => decodeTreeStrict(text));
      const fromBytes = outcome(() => decodeTree(utf8Encode(text)));
      const fromText = outcome(() => decodeTree(text));
      if (fromBytes !== strict || fromText !== strict) {
        differences++;
        expect({ text, fromBytes, fromText }).toEqual({ text, fromBytes: strict, fromText: strict });
      }
    }
    expect(differences).toBe(0);
  });

  it.each([
    ['no nodes', '{"nodes":[]}\n'],
    ['null nodes', '{"nodes":null}'],
    ['extra top-level field', '{"nodes":[],"x":1}'],
    ['case-folded top-level key', '{"Nodes":[]}'],
    ['whitespace around the document', ' {"nodes":[]} \r\n\t'],
    ['whitespace between nodes', `{"nodes":[{"name":"a","type":"dir","content":null,"subtree":"${ID}"} , {"name":"b","type":"file","content":[]}]}`],
    ['trailing garbage', '{"nodes":[]}x'],
    ['truncated', '{"nodes":[{"name":"a","type":"file","content":[]}'],
    ['a non-object node', '{"nodes":[{"name":"a","type":"file","content":[]},1]}'],
    ['a string node holding braces', '{"nodes":["{}"]}'],
    ['deep nesting in an unknown field', `{"nodes":[{"name":"a","type":"file","content":[],"x":${'['.repeat(997)}${']'.repeat(997)}}]}`],
    ['too deep nesting in an unknown field', `{"nodes":[{"name":"a","type":"file","content":[],"x":${'['.repeat(998)}${']'.repeat(998)}}]}`],
    ['a BOM', '\ufeff{"nodes":[]}'],
    ['a raw tab in a name', '{"nodes":[{"name":"a\tb","type":"file","content":[]}]}'],
    ['a raw DEL and U+2028 in a name', '{"nodes":[{"name":"a\u007f\u2028b","type":"file","content":[]}]}'],
    ['a lone surrogate in a JS string', '{"nodes":[{"name":"a","type":"file","content":[],"user":"\ud800"}]}'],
  ])('on %s', (_what, text) => {
    expect(outcome(() => decodeTree(text))).toBe(outcome(() => decodeTreeStrict(text)));
    const bytes = utf8Encode(text); // a lone surrogate becomes U+FFFD here
    expect(outcome(() => decodeTree(bytes))).toBe(outcome(() => decodeTreeStrict(utf8DecodeGo(bytes))));
  });

  it('on bytes that are not UTF-8, inside and outside strings', () => {
    const enc = (s: string) => [...utf8Encode(s)];
    const cases = [
      [...enc('{"nodes":[{"name":"a'), 0xff, 0xc3, ...enc('","type":"file","content":[]}]}')],
      [...enc('{"nodes":[{"name":"a","type":"file","content":[],"user":"'), 0xe2, 0x82, ...enc('"}]}')],
      [...enc('{"nodes":[{"name":"a","type":"file","content":[]'), 0xff, ...enc('}]}')],
    ];
    for (const bytes of cases) {
      const b = Uint8Array.from(bytes);
      expect(outcome(() => decodeTree(b))).toBe(outcome(() => decodeTreeStrict(utf8DecodeGo(b))));
    }
  });
});

describe('the fast path is taken', () => {
  const FIXTURES = join(import.meta.dirname, '../../test/fixtures/data/restic-0.14');

  it('for every node restic 0.14 wrote, unless its JSON has escapes', () => {
    let fast = 0;
    for (const id of readdirSync(join(FIXTURES, 'trees'))) {
      for (const node of decodeTree(readFileSync(join(FIXTURES, 'trees', id))).nodes) {
        const json = encodeNode(node); // restic's bytes for this node (the fixture tests prove it)
        const read = readNode(new JsonCursor(utf8Encode(json)));
        if (json.includes('\\')) continue; // names with Go escapes go to the strict reader
        expect(read && show(read), json).toBe(show(node));
        fast++;
      }
    }
    expect(fast).toBeGreaterThan(50);
  });

  it('for the snapshots restic 0.14 wrote', () => {
    for (const file of readdirSync(join(FIXTURES, 'snapshots'))) {
      const bytes = readFileSync(join(FIXTURES, 'snapshots', file));
      expect(show(readSnapshotFast(bytes))).toBe(show(decodeSnapshotStrict(bytes)));
    }
  });
});

describe('decodeSnapshot fast path agrees with the strict reader', () => {
  const summary =
    '{"backup_start":"2024-01-02T03:04:05Z","backup_end":"2024-01-02T03:04:06.5+01:00","files_new":1,"files_changed":2,' +
    '"files_unmodified":3,"dirs_new":4,"dirs_changed":5,"dirs_unmodified":6,"data_blobs":7,"tree_blobs":8,' +
    '"data_added":9,"data_added_packed":10,"total_files_processed":11,"total_bytes_processed":12}';
  const base = (): [string, string][] => [
    ['time', '"2024-01-02T03:04:05.06+01:00"'],
    ['parent', `"${ID}"`],
    ['tree', `"${ID}"`],
    ['paths', '["/home/u","/etc"]'],
    ['hostname', '"host"'],
    ['username', '"u"'],
    ['uid', '1000'],
    ['gid', '100'],
    ['excludes', '["*.tmp"]'],
    ['tags', '["a","b"]'],
    ['original', `"${ID}"`],
    ['program_version', '"restic 0.17.3"'],
    ['summary', summary],
  ];
  const variants = [...VALUE_VARIANTS, summary.replace('"data_blobs":7', '"data_blobs":-7'), summary.replace('"files_new":1,', ''), '["C:\\\\x"]'];

  it('on snapshot JSON with seeded perturbations', () => {
    const r = rng(11);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
    for (let t = 0; t < 2000; t++) {
      const fields = base();
      for (let m = Math.floor(r() * 3); m > 0; m--) {
        const at = Math.floor(r() * fields.length);
        const kind = Math.floor(r() * 4);
        if (kind === 0) fields[at]![1] = pick(variants);
        else if (kind === 1) fields.splice(at, 1);
        else if (kind === 2) fields.splice(at, 0, [pick(['label', 'Tree', 'tags', 'summary']), pick(variants)]);
        else [fields[at], fields[0]] = [fields[0]!, fields[at]!];
      }
      const text = '{' + fields.map(([k, v]) => `"${k}":${v}`).join(',') + '}';
      const strict = outcome(() => decodeSnapshotStrict(text));
      expect({ text, fast: outcome(() => decodeSnapshot(utf8Encode(text))) }).toEqual({ text, fast: strict });
      expect({ text, fast: outcome(() => decodeSnapshot(text)) }).toEqual({ text, fast: strict });
    }
  });
});

describe('GoTime.tryParse and writeRfc3339 agree with the reference', () => {
  const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  /** RFC3339Nano the slow, obvious way. */
  function reference(t: GoTime): string {
    const c = t.civil();
    let out = `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}`;
    if (t.nsec) out += '.' + pad(t.nsec, 9).replace(/0+$/, '');
    if (t.offset === 0) return out + 'Z';
    const zone = Math.trunc(t.offset / 60);
    return out + (zone < 0 ? '-' : '+') + pad(Math.floor(Math.abs(zone) / 60), 2) + ':' + pad(Math.abs(zone) % 60, 2);
  }

  it('formats like the obvious implementation', () => {
    const r = rng(3);
    for (let k = 0; k < 20000; k++) {
      const sec = Math.floor((r() - 0.3) * 2e10);
      const nsec = r() < 0.3 ? 0 : r() < 0.5 ? Math.floor(r() * 1000) * 1_000_000 : Math.floor(r() * 1e9);
      const offset = r() < 0.3 ? 0 : Math.floor((r() - 0.5) * 2 * 50400);
      const t = GoTime.fromUnix(sec, nsec, offset);
      const year = t.civil().year;
      if (year < 0 || year > 9999) expect(() => t.format()).toThrow(/year outside/);
      else expect(t.format()).toBe(reference(t));
    }
  });

  it('parses exactly what the regular expression and range checks accept', () => {
    const r = rng(5);
    const chars = '0123456789-:TZ.,+ x';
    const good = ['2020-09-13T12:26:40Z', '2020-09-13T12:26:40.123456789123+05:30', '0000-02-29T23:59:59.9-14:00', '2023-02-28T00:00:00,5Z'];
    for (let k = 0; k < 20000; k++) {
      let s = good[k % good.length]!;
      for (let m = Math.floor(r() * 3); m > 0; m--) {
        const at = Math.floor(r() * (s.length + 1));
        const c = chars[Math.floor(r() * chars.length)]!;
        s = r() < 0.5 ? s.slice(0, at) + c + s.slice(at + 1) : s.slice(0, at) + c + s.slice(at);
      }
      const fast = GoTime.tryParse(s);
      let ref: GoTime | undefined;
      try {
        ref = GoTime.parse(s);
      } catch {
        ref = undefined;
      }
      expect(fast === undefined, s).toBe(ref === undefined);
      if (fast && ref) expect(show(fast), s).toBe(show(ref));
      if (fast) expect(RFC3339.test(s), s).toBe(true);
      expect(show(GoTime.tryParse(utf8Encode(`"${s}"`), 1, s.length + 1)), s).toBe(show(fast));
    }
  });
});

describe('quoting shortcuts agree with the byte-wise reference', () => {
  it('goQuote of a string equals goQuote of its UTF-8 bytes for every BMP character', () => {
    for (let cp = 0; cp < 0x10000; cp += 1) {
      const s = `a${String.fromCharCode(cp)}b`;
      expect(goQuote(s)).toBe(goQuote(utf8Encode(s)));
    }
  });

  it('also for pairs, lone surrogates and random mixes', () => {
    const r = rng(9);
    const pool = ['a', '"', '\\', '\n', '\x7f', '\u00ad', '\u00e9', '\u2028', '\ud83d\ude00', '\ud83d', '\ude00', '\u{1FAE0}', '\ufffd', '<', '&'];
    for (let k = 0; k < 5000; k++) {
      let s = '';
      for (let n = Math.floor(r() * 8); n > 0; n--) s += pool[Math.floor(r() * pool.length)];
      expect(goQuote(s), JSON.stringify(s)).toBe(goQuote(utf8Encode(s)));
      const w = new JsonWriter(4);
      w.string(s);
      expect(w.text()).toBe(new TextDecoder().decode(utf8Encode(goJsonString(s))));
    }
  });
});
