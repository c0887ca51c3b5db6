// Snapshot entries for the forget unit tests: an ID from a label, a time as stored.

import { GoTime } from '../../core/data/go-time';
import type { SnapshotEntry } from '../../core/repository/snapshots';

export const TREE = 'a'.repeat(64);

/** A 64-hex ID whose first characters spell `label`'s position in a-p, e.g. 's1' → distinct and readable. */
export function idOf(label: string): string {
  let hex = '';
  for (const c of label) hex += c.charCodeAt(0).toString(16).padStart(2, '0');
  return hex.padEnd(64, '0');
}

export function entry(label: string, time: string, o: { host?: string; paths?: string[]; tags?: string[] } = {}): SnapshotEntry {
  const snapshot = { time: GoTime.parse(time), tree: TREE, paths: o.paths ?? ['/data'], hostname: o.host ?? 'h', ...(o.tags ? { tags: o.tags } : {}) };
  return { id: idOf(label), snapshot };
}

/** The labels of entries built by entry(). */
export function labels(list: readonly SnapshotEntry[]): string[] {
  return list.map((e) => {
    let s = '';
    for (let i = 0; i < e.id.length; i += 2) {
      const b = parseInt(e.id.slice(i, i + 2), 16);
      if (b === 0) break;
      s += String.fromCharCode(b);
    }
    return s;
  });
}
