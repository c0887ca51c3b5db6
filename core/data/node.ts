// restic's Node: one entry of a tree blob (docs/restic-format.md §9). encodeNode writes the JSON
// restic's Node.MarshalJSON does (Go struct order, omitempty, Go-quoted name, FixTime'd
// times); decodeNode reads restic's and rustic's nodes.
//
// Names and symlink targets are byte strings on Unix. A Node holds them as JS strings; when
// the bytes are not valid UTF-8 the string has U+FFFD in their place (one per bad byte, as
// Go shows them) and `rawName` / `linkTargetRaw` keep the exact bytes, which the encoder
// then uses (`\xNN` escapes in the name, `linktarget_raw` base64 as restic >= 0.16 writes).

import { CairnError } from '../errors';
import { isNodeType, type NodeType } from './file-mode';
import { goJsonBytes, goJsonString, goJsonStringBytes, goJsonUint, goJsonValue } from './go-json';
import { goQuote, goQuoteBody, goUnquote, GoSyntaxError } from './go-quote';
import { GoTime } from './go-time';
import { RFC3339_MAX_LENGTH, writeRfc3339 } from './rfc3339';
import { JsonWriter } from './json-writer';
import { FieldReader, type Fail } from './json-fields';
import { isJsonObject, type JsonObject, type JsonValue } from './json-reader';
import { byteOrderKey, isValidUtf8, utf8DecodeGo, utf8Encode } from './utf8';

export interface ExtendedAttribute {
  name: string;
  /** Go []byte: null and empty are different on the wire (`null` vs `""`). */
  value: Uint8Array | null;
}

export interface Node {
  name: string;
  /** The name's exact bytes; only set when they are not valid UTF-8. */
  rawName?: Uint8Array;
  type: NodeType;
  /** Go os.FileMode (see file-mode.ts); 0 is omitted. */
  mode?: number;
  mtime: GoTime;
  atime: GoTime;
  ctime: GoTime;
  uid: number;
  gid: number;
  user?: string;
  group?: string;
  inode?: bigint;
  /** st_dev; restic 0.14–0.16 store it for every node, 0.17+ only for hard links. */
  deviceId?: bigint;
  size?: number;
  links?: number;
  linkTarget?: string;
  /** The symlink target's exact bytes; only set when they are not valid UTF-8. */
  linkTargetRaw?: Uint8Array;
  extendedAttributes?: ExtendedAttribute[];
  /** restic >= 0.17 (Windows attributes), kept as read: key → JSON value. */
  genericAttributes?: Map<string, JsonValue>;
  /** st_rdev for device nodes. */
  device?: bigint;
  /** Data blob IDs: `[]` for an empty file, null for everything that is not a file. */
  content: string[] | null;
  /** Tree blob ID, required for directories. */
  subtree?: string;
  error?: string;
  /** Fields this code does not know, kept in input order (written only on request). */
  unknown?: [string, JsonValue][];
}

export interface EncodeOptions {
  /** Also write `unknown` fields back (after the known ones). Default false, as restic. */
  keepUnknown?: boolean;
}

/** The bytes restic compares and sorts names by. */
export function nameBytes(node: Pick<Node, 'name' | 'rawName'>): Uint8Array {
  return node.rawName ?? utf8Encode(node.name);
}

// A name that is printable ASCII without `"`, `\\`, `<`, `>`, `&` needs neither Go quoting nor
// JSON escaping: the common case, written without looking at it again.
const PLAIN_NAME = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]+$/;

/** restic's double escaping: strconv.Quote without the quotes, then JSON. */
export function encodeNodeName(name: string | Uint8Array): string {
  if (typeof name === 'string') return PLAIN_NAME.test(name) ? '"' + name + '"' : goJsonString(goQuoteBody(name));
  return goJsonString(goQuote(name).slice(1, -1));
}

function encodeError(node: Node, message: string): never {
  throw new CairnError('BAD_TREE', `node ${JSON.stringify(node.name)}: ${message}`, { op: 'encodeNode' });
}

function writeTime(w: JsonWriter, node: Node, key: string, t: GoTime): void {
  w.ascii(key);
  w.reserve(RFC3339_MAX_LENGTH + 2);
  const start = w.pos;
  try {
    w.buf[w.pos] = 0x22;
    w.pos = writeRfc3339(t.fixYear(), w.buf, w.pos + 1);
    w.buf[w.pos++] = 0x22;
  } catch (e) {
    w.pos = start;
    encodeError(node, e instanceof Error ? e.message : String(e));
  }
}

const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `,"key":value` for an unsigned field (nothing when undefined, or zero and omitEmpty). */
function writeUint(w: JsonWriter, node: Node, key: string, v: number | bigint | undefined, omitEmpty: boolean): void {
  if (typeof v === 'number') {
    if (v === 0 && omitEmpty) return;
    if (v >= 0 && Number.isSafeInteger(v)) {
      w.ascii(key);
      w.uint(v);
      return;
    }
  } else if (typeof v === 'bigint') {
    if (v === 0n && omitEmpty) return;
    if (v >= 0n && v <= MAX_UINT64) {
      w.ascii(key);
      if (v <= MAX_SAFE) w.uint(Number(v));
      else w.ascii(v.toString());
      return;
    }
  } else if (v === undefined) {
    return;
  }
  let reason = `not an unsigned integer: ${String(v)}`;
  try {
    goJsonUint(v); // throws with the reason
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  }
  encodeError(node, `${key.slice(2, -2)}: ${reason}`);
}

function writeId(w: JsonWriter, node: Node, id: string): void {
  if (typeof id !== 'string' || !w.id(id)) encodeError(node, `invalid ID ${JSON.stringify(id)}`);
}

/** Writes one node as Go's json.Marshal(node) does (restic 0.14 field list + 0.16/0.17 extras). */
export function writeNode(w: JsonWriter, node: Node, opts?: EncodeOptions): void {
  const name = node.rawName ?? node.name;
  if (name.length === 0) encodeError(node, 'empty name');
  if (!isNodeType(node.type)) encodeError(node, `invalid type ${JSON.stringify(node.type)}`);
  if (node.type === 'file' && node.content == null) encodeError(node, 'file without content list');
  if (node.type === 'dir' && !node.subtree) encodeError(node, 'dir without subtree');

  w.ascii('{"name":');
  if (typeof name !== 'string' || !w.plainName(name)) w.utf8(encodeNodeName(name));
  // Node types are plain ASCII words: no escaping needed.
  w.ascii(',"type":"');
  w.ascii(node.type);
  w.byte(0x22);
  writeUint(w, node, ',"mode":', node.mode, true);
  writeTime(w, node, ',"mtime":', node.mtime);
  writeTime(w, node, ',"atime":', node.atime);
  writeTime(w, node, ',"ctime":', node.ctime);
  writeUint(w, node, ',"uid":', node.uid ?? 0, false);
  writeUint(w, node, ',"gid":', node.gid ?? 0, false);
  if (node.user) {
    w.ascii(',"user":');
    w.string(node.user);
  }
  if (node.group) {
    w.ascii(',"group":');
    w.string(node.group);
  }
  writeUint(w, node, ',"inode":', node.inode, true);
  writeUint(w, node, ',"device_id":', node.deviceId, true);
  writeUint(w, node, ',"size":', node.size, true);
  writeUint(w, node, ',"links":', node.links, true);
  if (node.linkTargetRaw) w.utf8(`,"linktarget":${goJsonStringBytes(node.linkTargetRaw)}`);
  else if (node.linkTarget) {
    w.ascii(',"linktarget":');
    w.string(node.linkTarget);
  }
  if (node.linkTargetRaw?.length) w.ascii(`,"linktarget_raw":${goJsonBytes(node.linkTargetRaw)}`);
  if (node.extendedAttributes?.length) {
    const attrs = node.extendedAttributes.map((a) => `{"name":${goJsonString(a.name)},"value":${a.value === null ? 'null' : goJsonBytes(a.value)}}`);
    w.utf8(`,"extended_attributes":[${attrs.join(',')}]`);
  }
  if (node.genericAttributes?.size) {
    // Go writes map keys sorted by their bytes.
    const keys = [...node.genericAttributes.keys()].sort((a, b) => {
      const [x, y] = [byteOrderKey(a), byteOrderKey(b)];
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const parts = keys.map((k) => `${goJsonString(k)}:${goJsonValue(node.genericAttributes!.get(k)!)}`);
    w.utf8(`,"generic_attributes":{${parts.join(',')}}`);
  }
  writeUint(w, node, ',"device":', node.device, true);
  const content = node.content;
  if (content == null) {
    w.ascii(',"content":null');
  } else {
    w.ascii(',"content":[');
    for (let i = 0; i < content.length; i++) {
      if (i > 0) w.byte(0x2c);
      writeId(w, node, content[i]!);
    }
    w.byte(0x5d);
  }
  if (node.subtree) {
    w.ascii(',"subtree":');
    writeId(w, node, node.subtree);
  }
  if (node.error) {
    w.ascii(',"error":');
    w.string(node.error);
  }
  if (opts?.keepUnknown && node.unknown) {
    for (const [k, v] of node.unknown) w.utf8(`,${goJsonString(k)}:${goJsonValue(v)}`);
  }
  w.byte(0x7d);
}

/** One node as Go's json.Marshal(node) writes it (restic 0.14 field list + 0.16/0.17 extras). */
export function encodeNode(node: Node, opts?: EncodeOptions): string {
  const w = new JsonWriter(512);
  writeNode(w, node, opts);
  return w.text();
}

const NODE_FIELDS = [
  'name',
  'type',
  'mode',
  'mtime',
  'atime',
  'ctime',
  'uid',
  'gid',
  'user',
  'group',
  'inode',
  'device_id',
  'size',
  'links',
  'linktarget',
  'linktarget_raw',
  'extended_attributes',
  'generic_attributes',
  'device',
  'content',
  'subtree',
  'error',
] as const;

const XATTR_FIELDS = ['name', 'value'] as const;

function decodeName(quoted: string, fail: Fail): Pick<Node, 'name' | 'rawName'> {
  let bytes: Uint8Array;
  try {
    bytes = goUnquote('"' + quoted + '"');
  } catch (e) {
    if (e instanceof GoSyntaxError) return fail(`name ${JSON.stringify(quoted)} is not a valid Go-quoted string`);
    throw e;
  }
  return isValidUtf8(bytes) ? { name: utf8DecodeGo(bytes) } : { name: utf8DecodeGo(bytes), rawName: bytes };
}

function decodeXattrs(v: JsonValue | undefined, fail: Fail): ExtendedAttribute[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return fail('extended_attributes must be an array');
  return v.map((item) => {
    if (!isJsonObject(item)) return fail('extended attribute must be an object');
    const f = new FieldReader(item, XATTR_FIELDS, fail);
    return { name: f.string('name') ?? '', value: f.bytes('value') };
  });
}

/** A node from its parsed JSON object; `fail` throws the caller's coded error. */
export function decodeNodeValue(v: JsonValue, fail: Fail): Node {
  if (!isJsonObject(v)) return fail('node is not an object');
  let label = '';
  const at: Fail = (m) => fail(label + m);
  const f = new FieldReader(v, NODE_FIELDS, at);
  // A missing or empty name decodes (as in restic): the tree stays readable, and whatever
  // turns names into paths refuses that one node (node-name.ts).
  const { name, rawName } = decodeName(f.string('name') ?? '', fail);
  label = `node ${JSON.stringify(name)}: `;
  const type = f.string('type') ?? '';
  if (!isNodeType(type)) return at(`invalid type ${JSON.stringify(type)}`);

  const node: Node = {
    name,
    type,
    mtime: f.time('mtime') ?? GoTime.zero,
    atime: f.time('atime') ?? GoTime.zero,
    ctime: f.time('ctime') ?? GoTime.zero,
    uid: f.uint('uid', 32) ?? 0,
    gid: f.uint('gid', 32) ?? 0,
    content: f.ids('content'),
  };
  if (rawName) node.rawName = rawName;
  const mode = f.uint('mode', 32);
  if (mode) node.mode = mode;
  const opt = <K extends keyof Node>(key: K, value: Node[K] | undefined | '' | 0 | 0n) => {
    if (value) node[key] = value as Node[K];
  };
  opt('user', f.string('user'));
  opt('group', f.string('group'));
  opt('inode', f.uint64('inode'));
  opt('deviceId', f.uint64('device_id'));
  opt('size', f.uint('size', 53));
  opt('links', f.uint('links', 53));
  opt('linkTarget', f.string('linktarget'));
  const raw = f.bytes('linktarget_raw');
  if (raw) {
    // restic >= 0.16: the raw bytes replace linktarget.
    node.linkTarget = utf8DecodeGo(raw);
    if (!isValidUtf8(raw)) node.linkTargetRaw = raw;
    if (!node.linkTarget) delete node.linkTarget;
  }
  const xattrs = decodeXattrs(f.raw('extended_attributes'), at);
  if (xattrs?.length) node.extendedAttributes = xattrs;
  const generic = f.raw('generic_attributes');
  if (generic !== undefined && !isJsonObject(generic)) return at('generic_attributes must be an object');
  if (generic?.size) node.genericAttributes = generic as JsonObject;
  opt('device', f.uint64('device'));
  opt('subtree', f.id('subtree'));
  opt('error', f.string('error'));
  if (f.unknown.length) node.unknown = f.unknown;

  // A file with a null content list or a dir without subtree is readable, as in restic:
  // `check` reports the one node ("nil blob list", "subtree id is null") and restore fails
  // only that entry, instead of the whole directory becoming unreadable.
  return node;
}
