// Correctness at scale: a 100,000-node directory of every kind of node (weird and invalid
// UTF-8 names, uint64 values beyond 2^53, symlinks, devices, xattrs, several zones) must
// decode and re-encode to the same bytes. (fast-path.test.ts compares the fast and strict
// readers; here their results interleave in one tree, as they do for real directories.)
// No timing here: speed is bench/micro/tree-codec.ts's job.

import { describe, expect, it } from 'vitest';
import { WEIRD_NAMES } from '../../test/helpers/weird-tree';
import { GoTime } from './go-time';
import type { Node } from './node';
import { decodeTree, encodeTree } from './tree';
import { utf8DecodeGo } from './utf8';

const COUNT = 100_000;
const IDS = Array.from({ length: 997 }, (_, i) => ((i * 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(8));
const ZONES = [0, 3600, -9000, 19800];
const TIMES = Array.from({ length: 1000 }, (_, i) => GoTime.fromUnix(1_600_000_000 + i * 4099, (i * 7919) % 1_000_000_000, ZONES[i % 4]));
const OLD = GoTime.fromUnix(1_500_000_000, 0, 3600);
const BIG = 1n << 63n;

function makeNode(i: number): Node {
  let kind = i % 10;
  let name = `file-${i}.dat`;
  if (i % 7 === 0) name = `${WEIRD_NAMES[i % WEIRD_NAMES.length]} ${i}`;
  else if (i % 11 === 0) name = `\u00e9t\u00e9-\u65e5\u672c-${i}`;
  else if (i % 13 === 0) name = `emoji-\u{1F600}-${i}`;
  const node: Node = {
    name,
    type: 'file',
    mode: 0o644,
    mtime: TIMES[i % 1000]!,
    atime: i % 3 ? TIMES[i % 1000]! : OLD,
    ctime: TIMES[(i + 1) % 1000]!,
    uid: 1000 + (i % 3),
    gid: 100,
    user: i % 50 ? 'alice' : 'b\u00f6b',
    group: 'staff',
    inode: i % 97 ? BigInt(10_000 + i) : BIG + BigInt(i), // some beyond 2^53
    deviceId: i % 89 ? 2049n : 18446744073709551615n,
    links: 1 + (i % 2),
    content: null,
  };
  if (i % 101 === 0) {
    node.rawName = Uint8Array.from([...new TextEncoder().encode(`raw-${i}-`), 0xff, 0xc3]);
    node.name = utf8DecodeGo(node.rawName);
    kind = -1;
  }
  switch (kind) {
    case 0:
      return { ...node, type: 'dir', mode: 0x800001ed, subtree: IDS[i % 997] };
    case 1:
      node.type = 'symlink';
      node.linkTarget = i % 3 ? `../target/${i}` : 'x\ufffd';
      if (i % 3 === 0) node.linkTargetRaw = Uint8Array.from([0x78, 0xff]);
      return node;
    case 2:
      return { ...node, type: 'chardev', device: BigInt(i) };
    case 3:
      node.content = [];
      node.extendedAttributes = [{ name: 'user.k', value: Uint8Array.from([i & 255, 0, 60]) }];
      return node;
    case 4:
      node.size = 1 << 22;
      node.content = [IDS[i % 997]!, IDS[(i + 1) % 997]!, IDS[(i + 2) % 997]!];
      if (i % 4 === 0) node.error = 'read error <x>';
      return node;
    default:
      node.size = 1000 + i;
      node.content = [IDS[i % 997]!];
      return node;
  }
}

describe('a 100k-node tree', () => {
  it('decodes and re-encodes to identical bytes, and to the nodes it was made from', () => {
    const nodes = Array.from({ length: COUNT }, (_, i) => makeNode(i));
    const bytes = encodeTree([...nodes].reverse()); // encodeTree sorts by name bytes
    const tree = decodeTree(bytes);
    expect(tree.nodes.length).toBe(COUNT);
    expect(Buffer.from(encodeTree(tree.nodes)).equals(Buffer.from(bytes))).toBe(true);

    // The values themselves, on a sample (a deep comparison of all 100k nodes takes the test
    // runner many seconds); the exact bytes above cover the rest.
    const byName = new Map(tree.nodes.map((n) => [n.rawName ? Buffer.from(n.rawName).toString('hex') : n.name, n]));
    for (let i = 0; i < COUNT; i += 331) {
      const want = nodes[i]!;
      const got = byName.get(want.rawName ? Buffer.from(want.rawName).toString('hex') : want.name);
      expect(got, want.name).toEqual(want);
    }
    expect(tree.nodes.filter((n) => n.rawName).length).toBe(Math.ceil(COUNT / 101));
    expect(tree.nodes.filter((n) => n.inode! > BigInt(Number.MAX_SAFE_INTEGER)).length).toBe(Math.ceil(COUNT / 97));
  });
});
