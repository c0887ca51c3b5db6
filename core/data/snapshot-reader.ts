// The fast path of decodeSnapshot: a snapshot exactly as restic's json.Marshal (and
// encodeSnapshot) writes it — Go struct order, compact, plain strings — read in place with
// json-cursor.ts into the object decodeSnapshot's strict reader would build. Anything else
// (rustic's extra fields, escapes, other key order or case, …) returns undefined and the
// strict reader decides.

import type { GoTime } from './go-time';
import { JsonCursor } from './json-cursor';
import type { Snapshot } from './snapshot';
import { SUMMARY_FIELDS, type SnapshotSummary } from './snapshot-summary';

function uint32(c: JsonCursor): number | undefined {
  const v = c.uint();
  return v < 0 || v > 0xffffffff ? undefined : v;
}

function summary(c: JsonCursor): SnapshotSummary | undefined {
  let backupStart: GoTime | undefined;
  let backupEnd: GoTime | undefined;
  if (!c.lit('{"backup_start":') || !(backupStart = c.time())) return undefined;
  if (!c.lit(',"backup_end":') || !(backupEnd = c.time())) return undefined;
  const s = { backupStart, backupEnd } as SnapshotSummary;
  for (const [key, prop] of SUMMARY_FIELDS) {
    if (!c.char(0x2c) || !c.char(0x22) || !c.lit(key) || !c.lit('":')) return undefined;
    const v = c.uint(); // data_blobs / tree_blobs are Go ints: a negative one goes the slow way
    if (v < 0) return undefined;
    s[prop] = v;
  }
  return c.char(0x7d) ? s : undefined;
}

export function readSnapshotFast(b: Uint8Array): Snapshot | undefined {
  const c = new JsonCursor(b);
  if (!c.lit('{"time":')) return undefined;
  const time = c.time();
  if (!time) return undefined;
  let parent: string | undefined;
  if (c.lit(',"parent":') && !(parent = c.id())) return undefined;
  if (!c.lit(',"tree":')) return undefined;
  const tree = c.id();
  if (!tree || !c.lit(',"paths":')) return undefined;
  const paths = c.strings();
  if (paths === undefined) return undefined;

  const sn: Snapshot = { time, tree, paths: paths ?? [] };
  if (parent) sn.parent = parent;
  if (c.lit(',"hostname":')) {
    const v = c.string();
    if (v === undefined) return undefined;
    if (v) sn.hostname = v;
  }
  if (c.lit(',"username":')) {
    const v = c.string();
    if (v === undefined) return undefined;
    if (v) sn.username = v;
  }
  if (c.lit(',"uid":')) {
    const v = uint32(c);
    if (v === undefined) return undefined;
    if (v) sn.uid = v;
  }
  if (c.lit(',"gid":')) {
    const v = uint32(c);
    if (v === undefined) return undefined;
    if (v) sn.gid = v;
  }
  if (c.lit(',"excludes":')) {
    const v = c.strings();
    if (v === undefined) return undefined;
    if (v?.length) sn.excludes = v;
  }
  if (c.lit(',"tags":')) {
    const v = c.strings();
    if (v === undefined) return undefined;
    if (v?.length) sn.tags = v;
  }
  if (c.lit(',"original":')) {
    const v = c.id();
    if (v === undefined) return undefined;
    sn.original = v;
  }
  if (c.lit(',"program_version":')) {
    const v = c.string();
    if (v === undefined) return undefined;
    if (v) sn.programVersion = v;
  }
  if (c.lit(',"summary":')) {
    const v = summary(c);
    if (v === undefined) return undefined;
    sn.summary = v;
  }
  return c.char(0x7d) && c.atEnd() ? sn : undefined;
}
