// Saving a rewritten snapshot (restic cmd_rewrite.go filterAndReplaceSnapshot): the new
// snapshot keeps every field but its tree, records the old one as `original`, gets a tag
// ("rewrite", "repaired") unless the old one is forgotten, and is saved only after the trees
// it references are stored and indexed. A snapshot whose tree comes out unchanged is left
// alone; one whose tree is gone entirely is removed.

import type { Snapshot, SnapshotSummary } from '../data/snapshot';
import type { GoTime } from '../data/go-time';
import { encodeSnapshot } from '../data/snapshot';
import type { ID } from '../id';
import { BlobUploader } from '../repository/blob-uploader';
import type { Repository } from '../repository/repository';
import type { SnapshotEntry } from '../repository/snapshots';
import type { Printer } from '../progress/printer';

export interface FilterResult {
  /** The new root tree, or undefined when nothing is left. */
  tree: ID | undefined;
  /** A summary to store (rewrite recounts files and bytes). */
  summary?: SnapshotSummary;
}

export type SnapshotFilterFn = (entry: SnapshotEntry, uploader: BlobUploader) => Promise<FilterResult>;

export interface ReplaceOptions {
  dryRun?: boolean;
  forget?: boolean;
  /** Added to the new snapshot when the old one stays. */
  addTag: string;
  /** Keep a snapshot whose tree came out empty (restic: with include filters). */
  keepEmptySnapshot?: boolean;
  newTime?: GoTime;
  newHost?: string;
  signal?: AbortSignal;
  printer: Printer;
}

export interface ReplaceResult {
  changed: boolean;
  newID?: ID;
}

function sameSummary(a: SnapshotSummary | undefined, b: SnapshotSummary | undefined): boolean {
  if (!a || !b) return a === b;
  return Object.entries(a).every(([k, v]) => {
    const w = (b as unknown as Record<string, unknown>)[k];
    return typeof v === 'object' && v !== null && 'equal' in v ? (v as GoTime).equal(w as GoTime) : v === w;
  });
}

export async function replaceSnapshot(repo: Repository, entry: SnapshotEntry, filter: SnapshotFilterFn, opts: ReplaceOptions): Promise<ReplaceResult> {
  const pr = opts.printer;
  const uploader = new BlobUploader(repo, { signal: opts.signal });
  const { tree, summary } = await filter(entry, uploader);
  await uploader.finish();
  const sn = entry.snapshot;
  if (tree === undefined) {
    if (opts.keepEmptySnapshot) return { changed: false };
    if (opts.dryRun) pr.p('would delete empty snapshot');
    else {
      await repo.backend.remove({ type: 'snapshots', name: entry.id }, { signal: opts.signal });
      pr.p(`removed empty snapshot ${entry.id.slice(0, 8)}`);
    }
    return { changed: true };
  }
  const metadata = opts.newTime !== undefined || !!opts.newHost;
  if (tree === sn.tree && !metadata && (summary === undefined || sameSummary(summary, sn.summary))) return { changed: false };
  if (opts.dryRun) {
    pr.p('would save new snapshot');
    if (opts.forget) pr.p('would remove old snapshot');
    if (opts.newTime) pr.p(`would set time to ${opts.newTime.format()}`);
    if (opts.newHost) pr.p(`would set hostname to ${opts.newHost}`);
    return { changed: true };
  }
  const next: Snapshot = { ...sn, original: entry.id, tree, unknown: undefined };
  if (summary) next.summary = summary;
  if (!opts.forget && !(next.tags ?? []).includes(opts.addTag)) next.tags = [...(next.tags ?? []), opts.addTag];
  if (opts.newTime) {
    pr.p(`setting time to ${opts.newTime.format()}`);
    next.time = opts.newTime;
  }
  if (opts.newHost) {
    pr.p(`setting host to ${opts.newHost}`);
    next.hostname = opts.newHost;
  }
  const newID = await repo.saveJSON('snapshots', encodeSnapshot(next), opts.signal);
  pr.p(`saved new snapshot ${newID.slice(0, 8)}`);
  if (opts.forget) {
    await repo.backend.remove({ type: 'snapshots', name: entry.id }, { signal: opts.signal });
    pr.p(`removed old snapshot ${entry.id.slice(0, 8)}`);
  }
  return { changed: true, newID };
}
