import { describe, expect, it } from 'vitest';
import { GoTime } from './go-time';
import { decodeNodeValue, encodeNode, encodeNodeName, type Node } from './node';
import { parseJson, type JsonValue } from './json-reader';

const T = GoTime.parse('2020-09-13T12:26:40.5+02:00');
const TIMES = '"mtime":"2020-09-13T12:26:40.5+02:00","atime":"2020-09-13T12:26:40.5+02:00","ctime":"2020-09-13T12:26:40.5+02:00"';
const node = (extra: Partial<Node>): Node => ({
  name: 'n',
  type: 'file',
  mtime: T,
  atime: T,
  ctime: T,
  uid: 0,
  gid: 0,
  content: [],
  ...extra,
});
const roundTrip = (n: Node) =>
  decodeNodeValue(parseJson(encodeNode(n)), (m) => {
    throw new Error(m);
  });

describe('encodeNodeName (strconv.Quote, quotes stripped, then JSON)', () => {
  it.each([
    ['plain', '"plain"'],
    ['q"b\\<>&', '"q\\\\\\"b\\\\\\\\\\u003c\\u003e\\u0026"'], // as restic 0.14 wrote it
    ['tab\there', '"tab\\\\there"'],
    ['nb\u00a0', '"nb\\\\u00a0"'],
    ['ls\u2028', '"ls\\\\u2028"'],
    ['\u{1FAE0}', '"\\\\U0001fae0"'],
    [Uint8Array.from([0x62, 0xff]), '"b\\\\xff"'],
  ])('%j → %s', (name, json) => {
    expect(encodeNodeName(name)).toBe(json);
  });
});

describe('encodeNode', () => {
  it('writes Go struct order with omitempty, uid/gid/content always', () => {
    expect(encodeNode(node({}))).toBe(`{"name":"n","type":"file",${TIMES},"uid":0,"gid":0,"content":[]}`);
  });

  it('writes every field in restic 0.14/0.17 struct order', () => {
    const full = node({
      name: 'all',
      mode: 420,
      uid: 1000,
      gid: 100,
      user: 'u',
      group: 'g',
      inode: 1n,
      deviceId: 2n,
      size: 3,
      links: 4,
      linkTarget: 't',
      extendedAttributes: [
        { name: 'user.a', value: Uint8Array.from([1]) },
        { name: 'user.b', value: null },
      ],
      genericAttributes: new Map<string, JsonValue>([
        ['windows.z', true],
        ['windows.a', 'x'],
      ]),
      device: 5n,
      content: ['a'.repeat(64)],
      error: 'oops',
    });
    expect(encodeNode(full)).toBe(
      `{"name":"all","type":"file","mode":420,${TIMES},"uid":1000,"gid":100,"user":"u","group":"g",` +
        `"inode":1,"device_id":2,"size":3,"links":4,"linktarget":"t",` +
        `"extended_attributes":[{"name":"user.a","value":"AQ=="},{"name":"user.b","value":null}],` +
        `"generic_attributes":{"windows.a":"x","windows.z":true},"device":5,"content":["${'a'.repeat(64)}"],"error":"oops"}`,
    );
    expect(encodeNode(roundTrip(full))).toBe(encodeNode(full));
  });

  it('writes dirs with subtree and null content', () => {
    const d = node({ type: 'dir', mode: 2147484141, content: null, subtree: 'b'.repeat(64) });
    expect(encodeNode(d)).toBe(`{"name":"n","type":"dir","mode":2147484141,${TIMES},"uid":0,"gid":0,"content":null,"subtree":"${'b'.repeat(64)}"}`);
  });

  it('writes an invalid-UTF-8 symlink target as restic >= 0.16 does', () => {
    const l = node({ type: 'symlink', content: null, linkTarget: 'x\ufffd', linkTargetRaw: Uint8Array.from([0x78, 0xff]) });
    expect(encodeNode(l)).toContain(',"linktarget":"x\\ufffd","linktarget_raw":"eP8=","content":null}');
    expect(roundTrip(l).linkTargetRaw).toEqual(Uint8Array.from([0x78, 0xff]));
  });

  it('clamps years like restic FixTime before writing', () => {
    const far = GoTime.fromUnix(253402300800); // 10000-01-01T00:00:00Z
    expect(encodeNode(node({ mtime: far }))).toContain('"mtime":"9999-01-01T00:00:00Z"');
  });

  it('keeps a name with invalid UTF-8 byte-exact through a round trip', () => {
    const raw = Uint8Array.from([0x62, 0x61, 0x64, 0xff, 0xfe]);
    const n = roundTrip(node({ name: 'bad\ufffd\ufffd', rawName: raw }));
    expect(n.name).toBe('bad\ufffd\ufffd');
    expect(n.rawName).toEqual(raw);
    expect(roundTrip(node({ name: 'ok' })).rawName).toBeUndefined();
  });
});
