// The fast path of decodeSnapshot: a snapshot exactly as restic's json.Marshal (and
// encodeSnapshot) writes it — Go struct order, compact, plain strings — read in place with
// json-cursor.ts into the object decodeSnapshot's strict reader would build. Anything else
// (rustic's extra fields, escapes, other key order or case, …) returns undefined and the
// strict reader decides.

import { JsonCursor } from './json-cursor';
import type { Snapshot } from './snapshot-struct';
import { SUMMARY_FIELDS, type SnapshotSummary } from './snapshot-struct';

function uint32(c: JsonCursor): number | undefined {
  const v = c.uint();
  return v < 0 || v > 0xffffffff ? undefined : v;
}

// `,"files_new":` … in Go struct order.
const SUMMARY_KEYS = SUMMARY_FIELDS.map(([key]) => `,"${key}":`);

function summary(c: JsonCursor): SnapshotSummary | undefined {
  if (!c.lit('{"backup_start":')) return undefined;
  const backupStart = c.time();
  if (!backupStart || !c.lit(',"backup_end":')) return undefined;
  const backupEnd = c.time();
  if (!backupEnd) return undefined;
  const v: number[] = [];
  for (let k = 0; k < SUMMARY_KEYS.length; k++) {
    if (!c.lit(SUMMARY_KEYS[k]!)) return undefined;
    const n = c.uint(); // data_blobs / tree_blobs are Go ints: a negative one goes the slow way
    if (n < 0) return undefined;
    v.push(n);
  }
  if (!c.char(0x7d)) return undefined;
  // Property order as the strict reader sets them (SUMMARY_FIELDS order).
  return {
    backupStart,
    backupEnd,
    filesNew: v[0]!,
    filesChanged: v[1]!,
    filesUnmodified: v[2]!,
    dirsNew: v[3]!,
    dirsChanged: v[4]!,
    dirsUnmodified: v[5]!,
    dataBlobs: v[6]!,
    treeBlobs: v[7]!,
    dataAdded: v[8]!,
    dataAddedPacked: v[9]!,
    totalFilesProcessed: v[10]!,
    totalBytesProcessed: v[11]!,
  };
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
