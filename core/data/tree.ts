// Tree blobs: `{"nodes":[…]}` + "\n", nodes in strictly increasing byte order of their
// names, each written as restic's Node.MarshalJSON does (restic-format.md §9). This is the
// exact byte sequence restic's TreeJSONBuilder produces, so SHA-256(encodeTree(nodes)) is
// the tree ID restic would compute for the same directory (cross-client dedup).

import { CairnError } from '../errors';
import { parseJson, isJsonObject, JsonSyntaxError, type JsonValue } from './json-reader';
import { FieldReader } from './json-fields';
import { decodeNodeValue, encodeNode, type EncodeOptions, type Node } from './node';
import { byteOrderKey, utf8Encode } from './utf8';

export interface Tree {
  nodes: Node[];
  /** Top-level fields other than `nodes` (never written). */
  unknown?: [string, JsonValue][];
}

const TREE_FIELDS = ['nodes'] as const;

const badTree = (message: string, op: string, cause?: unknown) =>
  new CairnError('BAD_TREE', message, { op, cause });

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
  private parts: string[] = [];
  private last: string | undefined;

  constructor(private readonly opts: EncodeOptions = {}) {}

  add(node: Node): void {
    const key = byteOrderKey(node.name, node.rawName);
    if (this.last !== undefined && key <= this.last) throw orderError(node, key === this.last);
    this.parts.push(encodeNode(node, this.opts));
    this.last = key;
  }

  finish(): Uint8Array {
    const bytes = utf8Encode(HEAD + this.parts.join(',') + TAIL);
    this.parts = [];
    return bytes;
  }
}

/** Sorts the nodes by the bytes of their names and writes restic's exact tree bytes. */
export function encodeTree(nodes: readonly Node[], opts: EncodeOptions = {}): Uint8Array {
  const keyed = nodes.map((node) => ({ node, key: byteOrderKey(node.name, node.rawName) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const parts = keyed.map(({ node, key }, i) => {
    if (i > 0 && keyed[i - 1]!.key === key) throw orderError(node, true);
    return encodeNode(node, opts);
  });
  return utf8Encode(HEAD + parts.join(',') + TAIL);
}

/** Reads a tree blob written by restic (any version) or rustic. */
export function decodeTree(bytes: Uint8Array | string): Tree {
  const op = 'decodeTree';
  let doc: JsonValue;
  try {
    doc = parseJson(bytes);
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
