// core/data owns restic's metadata JSON: tree blobs (nodes), snapshot files, and the Go
// encodings they are built from — strconv.Quote'd names, encoding/json strings, RFC3339Nano
// times, os.FileMode bits — written byte-for-byte as restic 0.14 (go1.19) writes them, so
// our tree IDs equal restic's. Spec: docs/restic-format.md §8–§9.
//
// Speed (an unchanged re-backup decodes and re-encodes every tree): encoding writes bytes
// straight into one buffer (json-writer.ts); decoding reads JSON shaped as Go writes it in
// place from the bytes (json-cursor.ts, node-reader.ts, snapshot-reader.ts) and hands
// anything else, node by node, to the strict reader (json-reader.ts), which alone decides
// what is valid and what an error says. fast-path.test.ts holds the two to the same answers;
// bench/micro/tree-codec.ts measures them.

export { decodeTree, encodeTree, sortByName, TreeBuilder, type Tree } from './tree';
export { decodeNodeValue, encodeNode, encodeNodeName, nameBytes, type EncodeOptions, type ExtendedAttribute, type Node } from './node';
export { decodeSnapshot, encodeSnapshot, type Snapshot, type SnapshotSummary } from './snapshot';
export { GoTime, GoTimeError } from './go-time';
export {
  goFileModeFor,
  goFileModeFromUnix,
  goFileModeString,
  isNodeType,
  nodeTypeFromGoFileMode,
  unixModeFromGoFileMode,
  ModeCharDevice,
  ModeDevice,
  ModeDir,
  ModeIrregular,
  ModeNamedPipe,
  ModePerm,
  ModeSetgid,
  ModeSetuid,
  ModeSocket,
  ModeSticky,
  ModeSymlink,
  ModeType,
  NODE_TYPES,
  RESTIC_MODE_MASK,
  type NodeType,
} from './file-mode';
export { goQuote, goUnquote, GoSyntaxError, isGoPrint } from './go-quote';
export { goJsonString, goJsonStringBytes } from './go-json';
export { parseJson, JsonNumber, JsonSyntaxError, type JsonObject, type JsonValue } from './json-reader';
export { isId } from './json-fields';
export { compareBytes, isValidUtf8, utf8DecodeGo } from './utf8';
