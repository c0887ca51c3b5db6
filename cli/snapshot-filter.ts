// restic's snapshot filter flags (--host, --tag, --path; initMultiSnapshotFilter) and the
// selection they make with the command's snapshot ID arguments.

import type { SnapshotFilter } from '../core/repository/snapshots';
import { selectSnapshots, type Selection } from '../core/repository/select-snapshots';
import type { Repository } from '../core/repository/repository';
import type { FlagSpecs } from './args';
import type { Context } from './context';

export const SNAPSHOT_FILTER_FLAGS: FlagSpecs = {
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots including tag[,tag,...] (can be specified multiple times)' },
  path: { type: 'strings', help: 'only consider snapshots including this (absolute) path (can be specified multiple times)' },
};

export function snapshotFilter(ctx: Context): SnapshotFilter {
  const f = ctx.p.flags;
  return { hosts: f.host as string[] | undefined, tags: f.tag as string[] | undefined, paths: f.path as string[] | undefined };
}

/** The snapshots named by the arguments and filter flags; an unreadable one is fatal. */
export async function selectReadable(ctx: Context, repo: Repository, args: readonly string[]): Promise<Selection['entries']> {
  const sel = await selectSnapshots(repo, args, snapshotFilter(ctx), ctx.signal);
  // Messages of unreadable snapshots already name them ("snapshot 1a2b3c4d: …").
  if (sel.unreadable.length) throw sel.unreadable[0]!.error;
  return sel.entries;
}
