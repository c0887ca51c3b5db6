// The fast path of decodeTree: reads nodes as restic (and we) write them, in place from the
// tree's text (json-cursor.ts), and builds the same Node objects decodeNodeValue builds from
// the strict reader's values. Anything unusual — escapes in a name, upper-case IDs, unknown
// or case-folded keys, duplicate keys, Windows generic_attributes, whitespace, a malformed
// value — makes readNode return undefined, and the caller decodes that node with the strict
// reader instead (which also produces the error, if there is one).

import { isNodeType, type NodeType } from './file-mode';
import { decodeBase64 } from './go-json';
import { GoTime } from './go-time';
import type { JsonCursor } from './json-cursor';
import type { ExtendedAttribute, Node } from './node';
import { isValidUtf8, utf8DecodeGo } from './utf8';

// Field bits, to refuse duplicate keys (the strict reader lets the last one win).
const NAME = 1 << 0;
const TYPE = 1 << 1;
const MODE = 1 << 2;
const MTIME = 1 << 3;
const ATIME = 1 << 4;
const CTIME = 1 << 5;
const UID = 1 << 6;
const GID = 1 << 7;
const USER = 1 << 8;
const GROUP = 1 << 9;
const INODE = 1 << 10;
const DEVICE_ID = 1 << 11;
const SIZE = 1 << 12;
const LINKS = 1 << 13;
const LINKTARGET = 1 << 14;
const LINKTARGET_RAW = 1 << 15;
const XATTRS = 1 << 16;
const GENERIC = 1 << 17;
const DEVICE = 1 << 18;
const CONTENT = 1 << 19;
const SUBTREE = 1 << 20;
const ERROR = 1 << 21;

const take = (c: JsonCursor, key: string, field: number) => (c.lit(key) ? field : 0);

/** The field whose key (`"key":`) starts at the cursor, consumed; 0 if none. */
function key(c: JsonCursor): number {
  const b = c.b;
  const i = c.i;
  if (b[i] !== 0x22) return 0;
  const second = b[i + 2];
  switch (b[i + 1]) {
    case 0x61: // a
      return take(c, '"atime":', ATIME);
    case 0x63: // c
      return second === 0x6f ? take(c, '"content":', CONTENT) : take(c, '"ctime":', CTIME);
    case 0x64: // d
      return b[i + 7] === 0x22 ? take(c, '"device":', DEVICE) : take(c, '"device_id":', DEVICE_ID);
    case 0x65: // e
      return second === 0x72 ? take(c, '"error":', ERROR) : take(c, '"extended_attributes":', XATTRS);
    case 0x67: // g
      if (second === 0x69) return take(c, '"gid":', GID);
      return second === 0x72 ? take(c, '"group":', GROUP) : take(c, '"generic_attributes":', GENERIC);
    case 0x69: // i
      return take(c, '"inode":', INODE);
    case 0x6c: // l
      if (b[i + 5] === 0x73) return take(c, '"links":', LINKS);
      return b[i + 11] === 0x22 ? take(c, '"linktarget":', LINKTARGET) : take(c, '"linktarget_raw":', LINKTARGET_RAW);
    case 0x6d: // m
      return second === 0x6f ? take(c, '"mode":', MODE) : take(c, '"mtime":', MTIME);
    case 0x6e: // n
      return take(c, '"name":', NAME);
    case 0x73: // s
      return second === 0x69 ? take(c, '"size":', SIZE) : take(c, '"subtree":', SUBTREE);
    case 0x74: // t
      return take(c, '"type":', TYPE);
    case 0x75: // u
      return second === 0x69 ? take(c, '"uid":', UID) : take(c, '"user":', USER);
    default:
      return 0;
  }
}

function nodeType(c: JsonCursor): NodeType | undefined {
  if (c.lit('"file"')) return 'file';
  if (c.lit('"dir"')) return 'dir';
  const t = c.string();
  return t !== undefined && isNodeType(t) ? t : undefined;
}

/** `[{"name":…,"value":…},…]` with exactly those keys in that order. */
function xattrs(c: JsonCursor): ExtendedAttribute[] | undefined {
  if (!c.char(0x5b)) return undefined;
  const out: ExtendedAttribute[] = [];
  if (c.char(0x5d)) return out;
  for (;;) {
    if (!c.lit('{"name":')) return undefined;
    const name = c.lit('null') ? '' : c.string();
    if (name === undefined || !c.lit(',"value":')) return undefined;
    let value: Uint8Array | null = null;
    if (!c.lit('null')) {
      const b64 = c.string();
      value = b64 === undefined ? null : (decodeBase64(b64) ?? null);
      if (value === null) return undefined;
    }
    if (!c.char(0x7d)) return undefined;
    out.push({ name, value });
    if (c.char(0x5d)) return out;
    if (!c.char(0x2c)) return undefined;
  }
}

// Sibling nodes nearly always have the same owner: reuse the strings.
let lastUser = 'root';
let lastGroup = 'root';

/**
 * Reads the node object at the cursor, leaving the cursor after its `}`; undefined (cursor
 * anywhere) when the strict reader has to decide.
 */
export function readNode(c: JsonCursor): Node | undefined {
  if (!c.char(0x7b)) return undefined;
  let seen = 0;
  let name: string | undefined;
  let type: NodeType | undefined;
  let mode = 0;
  let mtime = GoTime.zero;
  let atime = GoTime.zero;
  let ctime = GoTime.zero;
  let uid = 0;
  let gid = 0;
  let user: string | undefined;
  let group: string | undefined;
  let inode: bigint | undefined;
  let deviceId: bigint | undefined;
  let size = 0;
  let links = 0;
  let linkTarget: string | undefined;
  let linkTargetRaw: Uint8Array | null = null;
  let extendedAttributes: ExtendedAttribute[] | undefined;
  let device: bigint | undefined;
  let content: string[] | null = null;
  let subtree: string | undefined;
  let error: string | undefined;

  if (c.char(0x7d)) return undefined; // no name
  for (;;) {
    const field = key(c);
    if (field === 0 || (seen & field) !== 0) return undefined;
    seen |= field;
    // null leaves a field at its zero value, as in Go.
    if (field !== CONTENT && c.lit('null')) {
      if (field === NAME || field === TYPE) return undefined;
    } else {
      switch (field) {
        case NAME:
          name = c.string();
          if (!name) return undefined; // escaped, or empty: see decodeName
          break;
        case TYPE:
          if ((type = nodeType(c)) === undefined) return undefined;
          break;
        case MODE:
        case UID:
        case GID: {
          const v = c.uint();
          if (v < 0 || v > 0xffffffff) return undefined;
          if (field === MODE) mode = v;
          else if (field === UID) uid = v;
          else gid = v;
          break;
        }
        case SIZE:
        case LINKS: {
          const v = c.uint();
          if (v < 0) return undefined;
          if (field === SIZE) size = v;
          else links = v;
          break;
        }
        case MTIME:
        case ATIME:
        case CTIME: {
          const t = c.time();
          if (t === undefined) return undefined;
          if (field === MTIME) mtime = t;
          else if (field === ATIME) atime = t;
          else ctime = t;
          break;
        }
        case USER:
          if ((user = c.stringLike(lastUser)) === undefined) return undefined;
          lastUser = user;
          break;
        case GROUP:
          if ((group = c.stringLike(lastGroup)) === undefined) return undefined;
          lastGroup = group;
          break;
        case INODE:
          if ((inode = c.uint64()) === undefined) return undefined;
          break;
        case DEVICE_ID:
          if ((deviceId = c.uint64()) === undefined) return undefined;
          break;
        case DEVICE:
          if ((device = c.uint64()) === undefined) return undefined;
          break;
        case LINKTARGET:
          if ((linkTarget = c.string()) === undefined) return undefined;
          break;
        case LINKTARGET_RAW: {
          const b64 = c.string();
          linkTargetRaw = b64 === undefined ? null : (decodeBase64(b64) ?? null);
          if (linkTargetRaw === null) return undefined;
          break;
        }
        case XATTRS:
          if ((extendedAttributes = xattrs(c)) === undefined) return undefined;
          break;
        case CONTENT: {
          const ids = c.ids();
          if (ids === undefined) return undefined;
          content = ids;
          break;
        }
        case SUBTREE:
          if ((subtree = c.id()) === undefined) return undefined;
          break;
        case ERROR:
          if ((error = c.string()) === undefined) return undefined;
          break;
        default:
          return undefined; // generic_attributes: JSON values, kept by the strict reader
      }
    }
    if (c.char(0x7d)) break;
    if (!c.char(0x2c)) return undefined;
  }
  if (name === undefined || type === undefined) return undefined;
  if (type === 'file' && content === null) return undefined;
  if (type === 'dir' && !subtree) return undefined;

  // The same object, property for property and in the same order, as decodeNodeValue's;
  // typical files and directories in one allocation.
  let node: Node;
  if (mode && user && group && inode && deviceId && links) {
    node = size
      ? { name, type, mtime, atime, ctime, uid, gid, content, mode, user, group, inode, deviceId, size, links }
      : { name, type, mtime, atime, ctime, uid, gid, content, mode, user, group, inode, deviceId, links };
  } else {
    node = { name, type, mtime, atime, ctime, uid, gid, content };
    if (mode) node.mode = mode;
    if (user) node.user = user;
    if (group) node.group = group;
    if (inode) node.inode = inode;
    if (deviceId) node.deviceId = deviceId;
    if (size) node.size = size;
    if (links) node.links = links;
  }
  if (linkTarget) node.linkTarget = linkTarget;
  if (linkTargetRaw) {
    // restic >= 0.16: the raw bytes replace linktarget.
    node.linkTarget = utf8DecodeGo(linkTargetRaw);
    if (!isValidUtf8(linkTargetRaw)) node.linkTargetRaw = linkTargetRaw;
    if (!node.linkTarget) delete node.linkTarget;
  }
  if (extendedAttributes?.length) node.extendedAttributes = extendedAttributes;
  if (device) node.device = device;
  if (subtree) node.subtree = subtree;
  if (error) node.error = error;
  return node;
}
