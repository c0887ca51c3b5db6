// Tree blobs: `{"nodes":[…]}` + "\n", nodes in strictly increasing byte order of their
// names, each written as restic's Node.MarshalJSON does (restic-format.md §9). This is the
// exact byte sequence restic's TreeJSONBuilder produces, so SHA-256(encodeTree(nodes)) is
// the tree ID restic would compute for the same directory (cross-client dedup).

import { CairnError } from '../errors';
import { parseJson, isJsonObject, JsonSyntaxError, type JsonValue } from './json-reader';
import { FieldReader } from './json-fields';
import { decodeNodeValue, encodeNode, nameBytes, type EncodeOptions, type Node } from './node';
import { compareBytes, utf8Encode } from './utf8';

export interface Tree {
  nodes: Node[];
  /** Top-level fields other than `nodes` (never written). */
  unknown?: [string, JsonValue][];
}

const badTree = (message: string, op: string, cause?: unknown) =>
  new CairnError('BAD_TREE', message, { op, cause });

/**
 * Streams a tree: nodes must arrive in strictly increasing name order (as restic's
 * TreeJSONBuilder demands), which keeps memory flat for huge directories.
 */
export class TreeBuilder {
  private parts: string[] = [];
  private last: Uint8Array | undefined;

  constructor(private readonly opts: EncodeOptions = {}) {}

  add(node: Node): void {
    const name = nameBytes(node);
    if (this.last && compareBytes(name, this.last) <= 0) {
      const dup = compareBytes(name, this.last) === 0;
      throw new CairnError('BAD_TREE', dup ? `duplicate node name ${JSON.stringify(node.name)}` : `node ${JSON.stringify(node.name)} out of order`, {
        op: 'encodeTree',
        detail: { name: node.name },
      });
    }
    this.parts.push(encodeNode(node, this.opts));
    this.last = name;
  }

  finish(): Uint8Array {
    const bytes = utf8Encode('{"nodes":[' + this.parts.join(',') + ']}\n');
    this.parts = [];
    return bytes;
  }
}

/** Sorts the nodes by the bytes of their names and writes restic's exact tree bytes. */
export function encodeTree(nodes: readonly Node[], opts: EncodeOptions = {}): Uint8Array {
  const keyed = nodes.map((node) => ({ node, key: nameBytes(node) }));
  keyed.sort((a, b) => compareBytes(a.key, b.key));
  const builder = new TreeBuilder(opts);
  for (const { node } of keyed) builder.add(node);
  return builder.finish();
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
  const fail = (m: string): never => {
    throw badTree(m, op);
  };
  if (!isJsonObject(doc)) fail('tree is not a JSON object');
  const f = new FieldReader(doc as Map<string, JsonValue>, ['nodes'], fail);
  const list = f.raw('nodes') ?? [];
  if (!Array.isArray(list)) fail('"nodes" is not an array');
  const nodes = (list as JsonValue[]).map((v, i) => decodeNodeValue(v, (m) => fail(`nodes[${i}]: ${m}`)));
  const tree: Tree = { nodes };
  if (f.unknown.length) tree.unknown = f.unknown;
  return tree;
}
