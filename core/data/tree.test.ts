import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { GoTime } from './go-time';
import type { Node } from './node';
import { decodeTree, encodeTree, TreeBuilder } from './tree';
import { WEIRD_NAMES } from '../../test/helpers/weird-tree';

const FIXTURES = join(import.meta.dirname, '../../test/fixtures/data/restic-0.14');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as {
  backups: { tz: string; trees: Record<string, string> }[];
  unicodeEdges: string;
};
const treeBytes = (id: string) => readFileSync(join(FIXTURES, 'trees', id));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const text = (b: Uint8Array) => Buffer.from(b).toString();

const T = GoTime.parse('2020-09-13T12:26:40Z');
const ID = (c: string) => c.repeat(64);
const file = (name: string, extra: Partial<Node> = {}): Node => ({
  name,
  type: 'file',
  mode: 420,
  mtime: T,
  atime: T,
  ctime: T,
  uid: 1000,
  gid: 100,
  content: [],
  ...extra,
});

describe('trees written by restic 0.14 (fixtures)', () => {
  const ids = readdirSync(join(FIXTURES, 'trees'));

  it.each(ids)('%s re-encodes to the same bytes (its ID)', (id) => {
    const bytes = treeBytes(id);
    expect(sha256(bytes)).toBe(id);
    const again = encodeTree(decodeTree(bytes).nodes);
    expect(text(again)).toBe(text(bytes));
    expect(sha256(again)).toBe(id);
  });

  it('has covered the interesting cases', () => {
    expect(ids.length).toBeGreaterThanOrEqual(20);
    expect(manifest.backups.map((b) => b.tz)).toEqual(['UTC', 'America/St_Johns']);
  });

  it('decodes the weird names, including one that is not UTF-8', () => {
    const tree = decodeTree(treeBytes(manifest.backups[0]!.trees['names']!));
    const names = tree.nodes.map((n) => n.name);
    for (const name of WEIRD_NAMES) expect(names).toContain(name);
    const bad = tree.nodes.find((n) => n.rawName)!;
    expect(bad.name).toBe('bad-utf8-\ufffd\ufffd\ufffd.bin');
    expect([...bad.rawName!.subarray(9, 12)]).toEqual([0xff, 0xfe, 0xc3]);
    expect(tree.nodes.find((n) => n.type === 'dir')!.name).toBe('dir "quoted" \\ <&>');
  });

  it('decodes special files, modes, xattrs and uint64 fields', () => {
    const special = decodeTree(treeBytes(manifest.backups[0]!.trees['special']!)).nodes;
    const byName = new Map(special.map((n) => [n.name, n]));
    expect(byName.get('chardev-null')).toMatchObject({ type: 'chardev', mode: 69206436, device: 259n, content: null });
    expect(byName.get('blockdev-loop')).toMatchObject({ type: 'dev', device: 1792n });
    expect(byName.get('fifo')).toMatchObject({ type: 'fifo', mode: 33554852 });
    expect(byName.get('setuid')).toMatchObject({ mode: 8389101, content: [] });
    expect(byName.get('sticky-dir')!.mode).toBe(2148532735);
    expect(byName.get('xattrs')!.extendedAttributes).toEqual([
      { name: 'user.cairn', value: Uint8Array.from([0x76, 0, 0xff, 0x3c, 0x26, 0x3e]) },
      { name: 'user.empty', value: new Uint8Array(0) },
    ]);
    expect(typeof byName.get('fifo')!.inode).toBe('bigint');
  });

  it('keeps the zone each time was written in', () => {
    const utc = decodeTree(treeBytes(manifest.backups[0]!.trees['sizes']!)).nodes[0]!;
    const nl = decodeTree(treeBytes(manifest.backups[1]!.trees['sizes']!)).nodes[0]!;
    expect(utc.mtime.format()).toBe('2020-09-13T12:26:40Z');
    expect(nl.mtime.format()).toBe('2020-09-13T09:56:40-02:30');
    expect(utc.mtime.equal(nl.mtime)).toBe(true);
  });

  it('matches go1.19 at every boundary of the printable-character table', () => {
    const bytes = treeBytes(manifest.unicodeEdges);
    const tree = decodeTree(bytes);
    expect(tree.nodes.length).toBeGreaterThan(10);
    expect(text(encodeTree(tree.nodes))).toBe(text(bytes));
  });
});

describe('encodeTree', () => {
  it('writes an empty tree as restic does', () => {
    expect(text(encodeTree([]))).toBe('{"nodes":[]}\n');
  });

  it('sorts by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FFFD is EF BF BD, the emoji F0 9F 98 80: bytes put U+FFFD first, JS strings the emoji.
    const names = ['b', '\u{1F600}', '\ufffd', 'B', 'a', 'é', 'e\u0301'];
    const tree = decodeTree(encodeTree(names.map((n) => file(n))));
    expect(tree.nodes.map((n) => n.name)).toEqual(['B', 'a', 'b', 'e\u0301', 'é', '\ufffd', '\u{1F600}']);
  });

  it('sorts names with raw bytes by those bytes', () => {
    const raw = Uint8Array.from([0x61, 0xff]);
    const tree = decodeTree(encodeTree([file('b'), file('a\ufffd', { rawName: raw }), file('a\ufffd')]));
    expect(tree.nodes.map((n) => n.rawName?.length ?? n.name)).toEqual(['a\ufffd', 2, 'b']);
  });

  it.each([
    ['duplicate names', [file('x'), file('x')]],
    ['duplicate names in NFC and raw-byte form', [file('é'), file('?', { rawName: new TextEncoder().encode('é') })]],
    ['empty name', [file('')]],
    ['file without content list', [file('f', { content: null })]],
    ['dir without subtree', [file('d', { type: 'dir', content: null })]],
    ['bad content ID', [file('f', { content: ['abc'] })]],
    ['upper-case subtree ID', [file('d', { type: 'dir', content: null, subtree: ID('A') })]],
    ['uid out of range', [file('f', { uid: -1 })]],
  ])('rejects %s with BAD_TREE', (_what, nodes) => {
    expect(() => encodeTree(nodes)).toThrow(expect.objectContaining({ code: 'BAD_TREE' }));
  });

  it('TreeBuilder insists on increasing order', () => {
    const b = new TreeBuilder();
    b.add(file('b'));
    expect(() => b.add(file('a'))).toThrow(expect.objectContaining({ code: 'BAD_TREE' }));
    expect(() => b.add(file('b'))).toThrow(/duplicate/);
    b.add(file('c'));
    expect(text(b.finish())).toMatch(/^\{"nodes":\[\{"name":"b".*\{"name":"c".*\]\}\n$/);
  });
});

describe('decodeTree', () => {
  const wrap = (node: string) => `{"nodes":[${node}]}\n`;
  const base = '"type":"file","mtime":"2020-09-13T12:26:40Z","atime":"2020-09-13T12:26:40Z","ctime":"2020-09-13T12:26:40Z","uid":0,"gid":0,"content":[]';

  it('keeps a node with an empty or missing name, and its siblings (refused later, where names become paths)', () => {
    const tree = decodeTree(new TextEncoder().encode(`{"nodes":[{"name":"",${base}},{${base}},{"name":"ok",${base}}]}\n`));
    expect(tree.nodes.map((n) => n.name)).toEqual(['', '', 'ok']);
  });

  it.each([
    ['not JSON', '{"nodes":[', /not valid JSON/],
    ['not an object', '[]', /not a JSON object/],
    ['nodes not an array', '{"nodes":{}}', /not an array/],
    ['node not an object', '{"nodes":[1]}', /not an object/],
    ['name with a bad Go escape', wrap(`{"name":"a\\\\q",${base}}`), /Go-quoted/],
    ['name with a raw quote', wrap(`{"name":"a\\"b",${base}}`), /Go-quoted/],
    ['unknown type', wrap(`{"name":"x",${base.replace('"file"', '"door"')}}`), /invalid type/],
    ['bad time', wrap(`{"name":"f",${base.replace('"2020-09-13T12:26:40Z"', '"yesterday"')}}`), /mtime/],
    ['negative uid', wrap(`{"name":"f",${base.replace('"uid":0', '"uid":-1')}}`), /uid/],
    ['uid above uint32', wrap(`{"name":"f",${base.replace('"uid":0', '"uid":4294967296')}}`), /uid/],
    ['inode above uint64', wrap(`{"name":"f","inode":18446744073709551616,${base}}`), /inode/],
    ['fractional size', wrap(`{"name":"f","size":1.0,${base}}`), /size/],
    ['bad content ID', wrap(`{"name":"f",${base.replace('[]', '["00"]')}}`), /content/],
    ['null content ID', wrap(`{"name":"f",${base.replace('[]', '[null]')}}`), /content/],
    ['bad xattr value', wrap(`{"name":"f","extended_attributes":[{"name":"a","value":"!"}],${base}}`), /base64/],
  ])('rejects %s with a coded error', (_what, json, message) => {
    try {
      decodeTree(new TextEncoder().encode(json));
      expect.unreachable();
    } catch (e) {
      expect(isCairnError(e, 'BAD_TREE')).toBe(true);
      expect((e as Error).message).toMatch(message);
    }
  });

  it('reads a file with a null content list and a dir without subtree, as restic does (check reports them)', () => {
    const t = decodeTree(
      `{"nodes":[{"name":"d","type":"dir","mtime":"2020-09-13T12:26:40Z","atime":"2020-09-13T12:26:40Z","ctime":"2020-09-13T12:26:40Z","uid":0,"gid":0,"content":null},{"name":"f","type":"file","mtime":"2020-09-13T12:26:40Z","atime":"2020-09-13T12:26:40Z","ctime":"2020-09-13T12:26:40Z","uid":0,"gid":0,"content":null}]}`,
    );
    expect(t.nodes.map((n) => [n.name, n.type, n.content, n.subtree])).toEqual([
      ['d', 'dir', null, undefined],
      ['f', 'file', null, undefined],
    ]);
  });

  it('reads rustic-style nodes: omitted times and ids, linktarget_raw, null nodes', () => {
    expect(decodeTree('{"nodes":null}').nodes).toEqual([]);
    const json = wrap(
      '{"name":"l","type":"symlink","linktarget":"a\ufffd","linktarget_raw":"Yf8=","content":null},' +
        `{"name":"d","type":"dir","mode":2147484141,"content":null,"subtree":"${ID('a')}"}`,
    );
    const [l, d] = decodeTree(json).nodes;
    expect(l).toMatchObject({ linkTarget: 'a\ufffd', linkTargetRaw: Uint8Array.from([0x61, 0xff]), uid: 0 });
    expect(l!.mtime.isZero()).toBe(true);
    expect(d!.subtree).toBe(ID('a'));
    // Re-encoded the way restic would write the same nodes.
    expect(text(encodeTree([l!]))).toBe(
      '{"nodes":[{"name":"l","type":"symlink","mtime":"0001-01-01T00:00:00Z","atime":"0001-01-01T00:00:00Z",' +
        '"ctime":"0001-01-01T00:00:00Z","uid":0,"gid":0,"linktarget":"a\\ufffd","linktarget_raw":"Yf8=","content":null}]}\n',
    );
  });

  it('matches keys case-insensitively like Go and keeps unknown fields', () => {
    const json = wrap(`{"Name":"f","SIZE":7,"future":{"x":[1]},${base}}`);
    const [n] = decodeTree(json).nodes;
    expect(n).toMatchObject({ name: 'f', size: 7 });
    expect(n!.unknown).toEqual([['future', new Map([['x', [expect.objectContaining({ text: '1' })]]])]]);
    expect(text(encodeTree([n!]))).not.toContain('future');
    expect(text(encodeTree([n!], { keepUnknown: true }))).toContain(',"future":{"x":[1]}}');
  });

  it('round-trips uint64 values above 2^53 exactly', () => {
    const json = wrap(
      `{"name":"f","type":"file","mtime":"2020-09-13T12:26:40Z","atime":"2020-09-13T12:26:40Z","ctime":"2020-09-13T12:26:40Z",` +
        `"uid":0,"gid":0,"inode":18446744073709551615,"device_id":9007199254740993,"content":[]}`,
    );
    const [n] = decodeTree(json).nodes;
    expect(n!.inode).toBe(18446744073709551615n);
    expect(n!.deviceId).toBe(9007199254740993n);
    expect(text(encodeTree([n!]))).toBe(json);
  });
});
