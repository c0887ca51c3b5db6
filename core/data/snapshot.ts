// Snapshot files (docs/restic-format.md §8): Go struct order and omitempty rules as restic writes
// them with json.Marshal (compact, no trailing newline). program_version and summary are
// restic 0.17+; older restic ignores them, so they are written whenever set. Fields other
// tools add (rustic: label, description, delete, …) are kept in `unknown` on read.

import { CairnError } from '../errors';
import { goJsonString, goJsonUint, goJsonValue } from './go-json';
import { JsonWriter } from './json-writer';
import { readSnapshotFast } from './snapshot-reader';
import { SUMMARY_FIELDS, type Snapshot, type SnapshotSummary } from './snapshot-struct';
import { GoTime } from './go-time';
import { RFC3339_MAX_LENGTH, writeRfc3339 } from './rfc3339';
import { FieldReader } from './json-fields';
import { isJsonObject, JsonSyntaxError, parseJson, type JsonValue } from './json-reader';
import { isWellFormed, utf8Encode } from './utf8';

export type { Snapshot, SnapshotSummary } from './snapshot-struct';

const SUMMARY_KEYS = ['backup_start', 'backup_end', ...SUMMARY_FIELDS.map((x) => x[0])];

const SNAPSHOT_FIELDS = [
  'time',
  'parent',
  'tree',
  'paths',
  'hostname',
  'username',
  'uid',
  'gid',
  'excludes',
  'tags',
  'original',
  'program_version',
  'summary',
] as const;

function fail(op: string, message: string, cause?: unknown): never {
  throw new CairnError('BAD_SNAPSHOT', message, { op, cause });
}

function writeTime(w: JsonWriter, key: string, t: GoTime, what: string): void {
  w.ascii(key);
  w.reserve(RFC3339_MAX_LENGTH + 2);
  const start = w.pos;
  try {
    w.buf[w.pos] = 0x22;
    w.pos = writeRfc3339(t, w.buf, w.pos + 1);
    w.buf[w.pos++] = 0x22;
  } catch (e) {
    w.pos = start;
    fail('encodeSnapshot', `${what}: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

function writeId(w: JsonWriter, key: string, id: string, what: string): void {
  w.ascii(key);
  if (typeof id !== 'string' || !w.id(id)) fail('encodeSnapshot', `${what} is not a lower-case 64-digit hex ID`);
}

function writeStrings(w: JsonWriter, key: string, list: readonly string[]): void {
  w.ascii(key);
  w.byte(0x5b);
  for (let i = 0; i < list.length; i++) {
    if (i > 0) w.byte(0x2c);
    w.string(list[i]!);
  }
  w.byte(0x5d);
}

// [`,"key":`, property, Go kind]
const SUMMARY_OUT = SUMMARY_FIELDS.map(([key, prop, kind]) => [`,"${key}":`, prop, kind] as const);

function writeSummary(w: JsonWriter, s: SnapshotSummary): void {
  writeTime(w, ',"summary":{"backup_start":', s.backupStart, 'backup_start');
  writeTime(w, ',"backup_end":', s.backupEnd, 'backup_end');
  for (let k = 0; k < SUMMARY_OUT.length; k++) {
    const [key, prop, kind] = SUMMARY_OUT[k]!;
    const v = s[prop];
    if (!Number.isSafeInteger(v) || (kind === 'uint' && v < 0)) fail('encodeSnapshot', `summary.${SUMMARY_FIELDS[k]![0]} out of range`);
    w.ascii(key);
    if (v >= 0) w.uint(v);
    else w.ascii(String(v));
  }
  w.byte(0x7d);
}

/** The snapshot JSON as restic's json.Marshal writes it (UTF-8, no trailing newline). */
export function encodeSnapshot(sn: Snapshot, opts: { keepUnknown?: boolean } = {}): Uint8Array {
  const w = new JsonWriter(1024);
  writeTime(w, '{"time":', sn.time, 'time');
  if (sn.parent) writeId(w, ',"parent":', sn.parent, 'parent');
  writeId(w, ',"tree":', sn.tree, 'tree');
  writeStrings(w, ',"paths":', sn.paths);
  if (sn.hostname) {
    w.ascii(',"hostname":');
    w.string(sn.hostname);
  }
  if (sn.username) {
    w.ascii(',"username":');
    w.string(sn.username);
  }
  for (const key of ['uid', 'gid'] as const) {
    const v = sn[key];
    if (v === undefined || v === 0) continue;
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) fail('encodeSnapshot', `${key} is not a uint32`);
    w.ascii(`,"${key}":${goJsonUint(v)}`);
  }
  if (sn.excludes?.length) writeStrings(w, ',"excludes":', sn.excludes);
  if (sn.tags?.length) writeStrings(w, ',"tags":', sn.tags);
  if (sn.original) writeId(w, ',"original":', sn.original, 'original');
  if (sn.programVersion) {
    w.ascii(',"program_version":');
    w.string(sn.programVersion);
  }
  if (sn.summary) writeSummary(w, sn.summary);
  if (opts.keepUnknown && sn.unknown) {
    for (const [k, v] of sn.unknown) w.utf8(`,${goJsonString(k)}:${goJsonValue(v)}`);
  }
  w.byte(0x7d);
  return w.bytes();
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
  if (typeof json === 'string') {
    return (isWellFormed(json) ? readSnapshotFast(utf8Encode(json)) : undefined) ?? decodeSnapshotStrict(json);
  }
  return readSnapshotFast(json) ?? decodeSnapshotStrict(json);
}

/** decodeSnapshot without the fast path: the reference it must agree with (see fast-path.test.ts). */
export function decodeSnapshotStrict(json: Uint8Array | string): Snapshot {
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
