// restic's JSON view of a snapshot in `snapshots --json` and `ls --json`: the stored fields
// plus id and short_id.

import { encodeSnapshot, type Snapshot } from '../core/data/snapshot';

export function snapshotJSON(id: string, sn: Snapshot): Record<string, unknown> {
  const stored = JSON.parse(new TextDecoder().decode(encodeSnapshot(sn))) as Record<string, unknown>;
  return { ...stored, id, short_id: id.slice(0, 8) };
}
