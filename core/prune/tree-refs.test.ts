import { describe, expect, it } from 'vitest';
import { decodeTree, encodeNodeName } from '../data';
import { treeRefs } from './tree-refs';

const enc = (s: string) => new TextEncoder().encode(s);
const id = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

/** The references as decodeTree's nodes give them (what restic's FindUsedBlobs reads). */
function expected(json: string): { data: string[]; trees: string[] } | undefined {
  let tree;
  try {
    tree = decodeTree(enc(json));
  } catch {
    return undefined;
  }
  return {
    data: tree.nodes.filter((n) => n.type === 'file').flatMap((n) => n.content ?? []),
    trees: tree.nodes.flatMap((n) => (n.type === 'dir' && n.subtree ? [n.subtree] : [])),
  };
}

function got(json: string): { data: string[]; trees: string[] } | undefined {
  const b = enc(json);
  const r = treeRefs(b);
  const str = (at: number) => new TextDecoder().decode(b.subarray(at, at + 64));
  return r && { data: r.data.map(str), trees: r.trees.map(str) };
}

const T = '"2023-01-02T03:04:05Z"';
const file = (name: string, content: string, extra = '') =>
  `{"name":${name},"type":"file","mode":420,"mtime":${T},"atime":${T},"ctime":${T},"uid":0,"gid":0,${extra}"size":3,"content":${content}}`;
const dir = (name: string, subtree: string) =>
  `{"name":${name},"type":"dir","mode":2147484141,"mtime":${T},"atime":${T},"ctime":${T},"uid":0,"gid":0,"content":null,"subtree":${subtree}}`;

describe('treeRefs', () => {
  it.each([
    ['{"nodes":null}', { data: [], trees: [] }],
    ['{"nodes":[]}\n', { data: [], trees: [] }],
    [
      `{"nodes":[${file('"a"', `["${id(1)}","${id(2)}"]`)},${dir('"d"', `"${id(3)}"`)},${file('"e"', '[]')},${file('"n"', 'null')}]}\n`,
      { data: [id(1), id(2)], trees: [id(3)] },
    ],
    // Keys in any order, unknown fields (also holding "content"), whitespace, escapes in names.
    [
      ` { "nodes" : [ {"content": ["${id(4)}"], "x": {"content": ["${id(9)}"], "subtree": "${id(9)}"}, "type" : "file", "name": ${encodeNodeName(`q"content":["${id(8)}"]`)}} ] , "extra": [1, -2.5e3, true, null, "s"] } `,
      { data: [id(4)], trees: [] },
    ],
    // Content of a directory and the subtree of a file are not references (as in restic).
    [
      `{"nodes":[{"type":"dir","content":["${id(5)}"],"subtree":"${id(6)}"},{"type":"file","subtree":"${id(7)}","content":["${id(1)}"]}]}`,
      { data: [id(1)], trees: [id(6)] },
    ],
    [`{"nodes":[{"type":"symlink","linktarget":"x","content":["${id(5)}"]}]}`, { data: [], trees: [] }],
  ])('reads %s', (json, want) => {
    expect(got(json)).toEqual(want);
    expect(expected(json)).toEqual(want);
  });

  it.each([
    ['a key in other letter case (Go matches it)', `{"nodes":[{"type":"file","Content":["${id(1)}"]}]}`],
    ['a key with escapes', `{"nodes":[{"type":"file","c\\u006fntent":["${id(1)}"]}]}`],
    ['a key given twice', `{"nodes":[{"type":"file","content":["${id(1)}"],"content":["${id(2)}"]}]}`],
    ['an upper-case ID', `{"nodes":[{"type":"file","content":["${id(0xab).toUpperCase()}"]}]}`],
    ['a short ID', `{"nodes":[{"type":"file","content":["abc"]}]}`],
    ['a directory without subtree', `{"nodes":[{"type":"dir","subtree":null}]}`],
    ['NODES', `{"NODES":[]}`],
    ['truncated JSON', `{"nodes":[{"type":"file","content":["${id(1)}"]`],
    ['trailing garbage', `{"nodes":[]}x`],
    ['a bad literal', `{"nodes":[{"type":"file","size":12x}]}`],
    ['a bad escape', `{"nodes":[{"type":"file","name":"a\\qb"}]}`],
    ['a control character in a string', `{"nodes":[{"type":"file","name":"a\tb"}]}`],
  ])('leaves %s to decodeTree', (_what, json) => {
    expect(got(json)).toBeUndefined();
  });

  it('agrees with decodeTree on seeded random restic-shaped trees', () => {
    let seed = 7;
    const r = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) as number;
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    const names = ['plain', 'caf\u00e9', 'a\\b', '<x>', 'q"content":[]', 'tab\there', '\u{1f600}'].map((n) => encodeNodeName(n));
    let fast = 0;
    for (let t = 0; t < 400; t++) {
      const nodes: string[] = [];
      for (let i = 0; i < 1 + Math.floor(r() * 6); i++) {
        const ids = Array.from({ length: Math.floor(r() * 3) }, () => `"${id(Math.floor(r() * 256))}"`);
        const extra = r() < 0.3 ? `"xattr":[{"name":"user.a","value":"AQ=="}],"generic_attributes":{"content":["${id(200)}"]},` : '';
        let node = r() < 0.7 ? file(pick(names), r() < 0.2 ? 'null' : `[${ids.join(',')}]`, extra) : dir(pick(names), `"${id(Math.floor(r() * 256))}"`);
        if (r() < 0.1) node = node.replace(/,/g, ' ,\n ');
        if (r() < 0.05) node = node.replace('"mode":420', '"mode":"x"'); // decodeTree refuses; references are still certain
        nodes.push(node);
      }
      const json = `{"nodes":[${nodes.join(',')}]}\n`;
      const want = expected(json);
      const have = got(json);
      if (have) fast++;
      if (want && have) expect(have, json).toEqual(want);
      if (!want) expect(json).toContain('"mode":"x"');
    }
    expect(fast).toBeGreaterThan(380);
  });
});
