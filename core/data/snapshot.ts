// Snapshot files (restic-format.md §8): Go struct order and omitempty rules as restic writes
// them with json.Marshal (compact, no trailing newline). program_version and summary are
// restic 0.17+; older restic ignores them, so they are written whenever set. Fields other
// tools add (rustic: label, description, delete, …) are kept in `unknown` on read.

import { CairnError } from '../errors';
import { goJsonString, goJsonUint, goJsonValue } from './go-json';
import { GoTime } from './go-time';
import { FieldReader, isId } from './json-fields';
import { isJsonObject, JsonSyntaxError, parseJson, type JsonValue } from './json-reader';
import { utf8Encode } from './utf8';

export interface SnapshotSummary {
  backupStart: GoTime;
  backupEnd: GoTime;
  filesNew: number;
  filesChanged: number;
  filesUnmodified: number;
  dirsNew: number;
  dirsChanged: number;
  dirsUnmodified: number;
  dataBlobs: number;
  treeBlobs: number;
  dataAdded: number;
  dataAddedPacked: number;
  totalFilesProcessed: number;
  totalBytesProcessed: number;
}

export interface Snapshot {
  /** When the backup started, with the local zone offset (forget's buckets use it). */
  time: GoTime;
  parent?: string;
  tree: string;
  paths: string[];
  hostname?: string;
  username?: string;
  uid?: number;
  gid?: number;
  excludes?: string[];
  tags?: string[];
  original?: string;
  programVersion?: string;
  summary?: SnapshotSummary;
  unknown?: [string, JsonValue][];
}

// [JSON key, property, Go kind] in Go struct order.
const SUMMARY_FIELDS = [
  ['files_new', 'filesNew', 'uint'],
  ['files_changed', 'filesChanged', 'uint'],
  ['files_unmodified', 'filesUnmodified', 'uint'],
  ['dirs_new', 'dirsNew', 'uint'],
  ['dirs_changed', 'dirsChanged', 'uint'],
  ['dirs_unmodified', 'dirsUnmodified', 'uint'],
  ['data_blobs', 'dataBlobs', 'int'],
  ['tree_blobs', 'treeBlobs', 'int'],
  ['data_added', 'dataAdded', 'uint'],
  ['data_added_packed', 'dataAddedPacked', 'uint'],
  ['total_files_processed', 'totalFilesProcessed', 'uint'],
  ['total_bytes_processed', 'totalBytesProcessed', 'uint'],
] as const;

const SUMMARY_KEYS = ['backup_start', 'backup_end', ...SUMMARY_FIELDS.map((x) => x[0])];

const SNAPSHOT_FIELDS = [
  'time', 'parent', 'tree', 'paths', 'hostname', 'username', 'uid', 'gid', 'excludes', 'tags', 'original',
  'program_version', 'summary',
] as const;

function fail(op: string, message: string, cause?: unknown): never {
  throw new CairnError('BAD_SNAPSHOT', message, { op, cause });
}

function encodeTime(t: GoTime, what: string): string {
  try {
    return '"' + t.format() + '"';
  } catch (e) {
    return fail('encodeSnapshot', `${what}: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

function encodeId(id: string, what: string): string {
  return isId(id) ? `"${id}"` : fail('encodeSnapshot', `${what} is not a lower-case 64-digit hex ID`);
}

const strings = (list: readonly string[]) => '[' + list.map(goJsonString).join(',') + ']';

function encodeSummary(s: SnapshotSummary): string {
  let out = `{"backup_start":${encodeTime(s.backupStart, 'backup_start')},"backup_end":${encodeTime(s.backupEnd, 'backup_end')}`;
  for (const [key, prop, kind] of SUMMARY_FIELDS) {
    const v = s[prop];
    if (!Number.isSafeInteger(v) || (kind === 'uint' && v < 0)) fail('encodeSnapshot', `summary.${key} out of range`);
    out += `,"${key}":${v}`;
  }
  return out + '}';
}

/** The snapshot JSON as restic's json.Marshal writes it (UTF-8, no trailing newline). */
export function encodeSnapshot(sn: Snapshot, opts: { keepUnknown?: boolean } = {}): Uint8Array {
  let out = `{"time":${encodeTime(sn.time, 'time')}`;
  if (sn.parent) out += `,"parent":${encodeId(sn.parent, 'parent')}`;
  out += `,"tree":${encodeId(sn.tree, 'tree')},"paths":${strings(sn.paths)}`;
  if (sn.hostname) out += `,"hostname":${goJsonString(sn.hostname)}`;
  if (sn.username) out += `,"username":${goJsonString(sn.username)}`;
  for (const key of ['uid', 'gid'] as const) {
    const v = sn[key];
    if (v === undefined || v === 0) continue;
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) fail('encodeSnapshot', `${key} is not a uint32`);
    out += `,"${key}":${goJsonUint(v)}`;
  }
  if (sn.excludes?.length) out += `,"excludes":${strings(sn.excludes)}`;
  if (sn.tags?.length) out += `,"tags":${strings(sn.tags)}`;
  if (sn.original) out += `,"original":${encodeId(sn.original, 'original')}`;
  if (sn.programVersion) out += `,"program_version":${goJsonString(sn.programVersion)}`;
  if (sn.summary) out += `,"summary":${encodeSummary(sn.summary)}`;
  if (opts.keepUnknown && sn.unknown) {
    for (const [k, v] of sn.unknown) out += `,${goJsonString(k)}:${goJsonValue(v)}`;
  }
  return utf8Encode(out + '}');
}

function decodeSummary(v: JsonValue, bad: (m: string) => never): SnapshotSummary {
  if (!isJsonObject(v)) return bad('summary is not an object');
  const f = new FieldReader(v, SUMMARY_KEYS, (m) => bad(`summary: ${m}`));
  const s = {
    backupStart: f.time('backup_start') ?? GoTime.zero,
    backupEnd: f.time('backup_end') ?? GoTime.zero,
  } as SnapshotSummary;
  for (const [key, prop, kind] of SUMMARY_FIELDS) s[prop] = (kind === 'int' ? f.int(key) : f.uint(key, 53)) ?? 0;
  return s;
}

/** Reads a snapshot file's JSON (restic's or rustic's). */
export function decodeSnapshot(json: Uint8Array | string): Snapshot {
  const op = 'decodeSnapshot';
  const bad = (m: string): never => fail(op, m);
  let doc: JsonValue;
  try {
    doc = parseJson(json);
  } catch (e) {
    if (e instanceof JsonSyntaxError) fail(op, `snapshot is not valid JSON: ${e.message}`, e);
    throw e;
  }
  if (!isJsonObject(doc)) return bad('snapshot is not a JSON object');
  const f = new FieldReader(doc, SNAPSHOT_FIELDS, bad);
  const time = f.time('time');
  if (!time) return bad('snapshot has no time');
  const tree = f.id('tree');
  if (!tree) return bad('snapshot has no tree');
  const sn: Snapshot = { time, tree, paths: f.strings('paths') ?? [] };
  const set = <K extends keyof Snapshot>(key: K, value: Snapshot[K] | undefined | null | '' | 0) => {
    if (value && !(Array.isArray(value) && value.length === 0)) sn[key] = value as Snapshot[K];
  };
  set('parent', f.id('parent'));
  set('hostname', f.string('hostname'));
  set('username', f.string('username'));
  set('uid', f.uint('uid', 32));
  set('gid', f.uint('gid', 32));
  set('excludes', f.strings('excludes'));
  set('tags', f.strings('tags'));
  set('original', f.id('original'));
  set('programVersion', f.string('program_version'));
  const summary = f.raw('summary');
  if (summary !== undefined) sn.summary = decodeSummary(summary, bad);
  if (f.unknown.length) sn.unknown = f.unknown;
  return sn;
}
