// Tree blobs: `{"nodes":[…]}` + "\n", nodes in strictly increasing byte order of their
// names, each written as restic's Node.MarshalJSON does (docs/restic-format.md §9). This is the
// exact byte sequence restic's TreeJSONBuilder produces, so SHA-256(encodeTree(nodes)) is
// the tree ID restic would compute for the same directory (cross-client dedup).

import { CairnError } from '../errors';
import { parseJson, parseJsonValueAt, isJsonObject, JsonSyntaxError, type JsonValue } from './json-reader';
import { JsonCursor } from './json-cursor';
import { readNode } from './node-reader';
import { FieldReader } from './json-fields';
import { decodeNodeValue, writeNode, type EncodeOptions, type Node } from './node';
import { JsonWriter } from './json-writer';
import { byteOrderKey, isWellFormed, utf8DecodeGo, utf8Encode } from './utf8';

export interface Tree {
  nodes: Node[];
  /** Top-level fields other than `nodes` (never written). */
  unknown?: [string, JsonValue][];
}

const TREE_FIELDS = ['nodes'] as const;

const badTree = (message: string, op: string, cause?: unknown) => new CairnError('BAD_TREE', message, { op, cause });

const HEAD = '{"nodes":[';
const TAIL = ']}\n';

function orderError(node: Node, duplicate: boolean): CairnError {
  const what = duplicate ? 'duplicate node name' : 'node out of order:';
  return new CairnError('BAD_TREE', `${what} ${JSON.stringify(node.name)}`, {
    op: 'encodeTree',
    detail: { name: node.name },
  });
}

/**
 * Streams a tree: nodes must arrive in strictly increasing name order (as restic's
 * TreeJSONBuilder demands), which keeps memory flat for huge directories.
 */
export class TreeBuilder {
  private w = new JsonWriter();
  private last: string | undefined;

  constructor(private readonly opts: EncodeOptions = {}) {
    this.w.ascii(HEAD);
  }

  add(node: Node): void {
    const key = byteOrderKey(node.name, node.rawName);
    if (this.last !== undefined && key <= this.last) throw orderError(node, key === this.last);
    const start = this.w.pos;
    try {
      if (this.last !== undefined) this.w.byte(0x2c);
      writeNode(this.w, node, this.opts);
    } catch (e) {
      this.w.pos = start; // a rejected node leaves no trace
      throw e;
    }
    this.last = key;
  }

  finish(): Uint8Array {
    this.w.ascii(TAIL);
    const bytes = this.w.bytes();
    this.w = new JsonWriter();
    this.w.ascii(HEAD);
    this.last = undefined;
    return bytes;
  }
}

// Strings compare by UTF-16 code units; that is the order of their UTF-8 bytes unless a
// surrogate (a character above U+FFFF, or a lone one, which stands for U+FFFD) is involved.
const SURROGATE = /[\ud800-\udfff]/;

/**
 * Sort keys whose `<` is restic's byte order: the names themselves when they can be compared
 * as strings, byte strings (byteOrderKey) when a raw name or a surrogate is present.
 */
function sortKeys(nodes: readonly Node[]): string[] {
  const keys = new Array<string>(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (node.rawName || SURROGATE.test(node.name)) return nodes.map((n) => byteOrderKey(n.name, n.rawName));
    keys[i] = node.name;
  }
  return keys;
}

/** Sorts `items` in place by the bytes of their nodes' names (a tree's order); returns `items`. */
export function sortByName<T>(items: T[], nodeOf: (item: T) => Pick<Node, 'name' | 'rawName'>): T[] {
  const keys = sortKeys(items.map(nodeOf) as Node[]);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) return items;
  const order = keys.map((_, j) => j).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
  const copy = order.map((j) => items[j]!);
  for (let i = 0; i < copy.length; i++) items[i] = copy[i]!;
  return items;
}

/** Sorts the nodes by the bytes of their names and writes restic's exact tree bytes. */
export function encodeTree(nodes: readonly Node[], opts: EncodeOptions = {}): Uint8Array {
  const keys = sortKeys(nodes);
  let order: number[] | undefined; // undefined: already in order (the archiver's usual case)
  for (let i = 1; i < keys.length; i++) {
    if (!(keys[i - 1]! < keys[i]!)) {
      order = keys.map((_, j) => j);
      order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
      break;
    }
  }
  const w = new JsonWriter(nodes.length * 384 + 64);
  w.ascii(HEAD);
  for (let i = 0; i < nodes.length; i++) {
    const at = order ? order[i]! : i;
    if (i > 0) {
      if (keys[order ? order[i - 1]! : i - 1] === keys[at]) throw orderError(nodes[at]!, true);
      w.byte(0x2c);
    }
    writeNode(w, nodes[at]!, opts);
  }
  w.ascii(TAIL);
  return w.bytes();
}

/** Reads a tree blob written by restic (any version) or rustic. */
export function decodeTree(bytes: Uint8Array | string): Tree {
  // A string argument may hold lone surrogates, which only the strict reader keeps as such.
  if (typeof bytes === 'string') {
    return (isWellFormed(bytes) ? readTreeFast(utf8Encode(bytes)) : undefined) ?? decodeTreeStrict(bytes);
  }
  return readTreeFast(bytes) ?? decodeTreeStrict(utf8DecodeGo(bytes));
}

const NEEDS_STRICT = new Error('needs the strict reader');
const refuse = (): never => {
  throw NEEDS_STRICT;
};

/**
 * The tree as restic writes it, read in place (node-reader.ts); nodes the fast reader
 * declines are parsed strictly one by one. Undefined when the tree as a whole needs the
 * strict reader: another top-level shape, or any error (which decodeTreeStrict then reports
 * exactly as it always has).
 */
function readTreeFast(b: Uint8Array): Tree | undefined {
  const c = new JsonCursor(b);
  if (!c.lit('{"nodes":')) return undefined;
  const nodes: Node[] = [];
  if (!c.lit('null')) {
    if (!c.char(0x5b)) return undefined;
    if (!c.char(0x5d)) {
      for (;;) {
        const start = c.i;
        let node = readNode(c);
        if (node === undefined) {
          c.i = start;
          const end = c.valueEnd();
          if (end < 0) return undefined;
          try {
            // Bytes from `{` to `}` decode on their own exactly as within the whole text.
            const text = utf8DecodeGo(b.subarray(start, end));
            const [value, stop] = parseJsonValueAt(text, 0, 2);
            if (stop !== text.length) return undefined;
            node = decodeNodeValue(value, refuse);
          } catch {
            return undefined;
          }
          c.i = end;
        }
        nodes.push(node);
        if (c.char(0x5d)) break;
        if (!c.char(0x2c)) return undefined;
      }
    }
  }
  if (!c.char(0x7d) || !c.atEnd()) return undefined;
  return { nodes };
}

/** decodeTree without the fast path: the reference it must agree with (see fast-path.test.ts). */
export function decodeTreeStrict(text: string): Tree {
  const op = 'decodeTree';
  let doc: JsonValue;
  try {
    doc = parseJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) throw badTree(`tree is not valid JSON: ${e.message}`, op, e);
    throw e;
  }
  function fail(m: string): never {
    throw badTree(m, op);
  }
  if (!isJsonObject(doc)) fail('tree is not a JSON object');
  const f = new FieldReader(doc, TREE_FIELDS, fail);
  const list = f.raw('nodes') ?? [];
  if (!Array.isArray(list)) fail('"nodes" is not an array');
  const nodes = list.map((v, i) => decodeNodeValue(v, (m) => fail(`nodes[${i}]: ${m}`)));
  const tree: Tree = { nodes };
  if (f.unknown.length) tree.unknown = f.unknown;
  return tree;
}
