// restic's snapshot filter flags (--host, --tag, --path; initMultiSnapshotFilter) and the
// selection they make with the command's snapshot ID arguments.

import { findSnapshot, listSnapshots, matches, type SnapshotEntry, type SnapshotFilter } from '../core/repository/snapshots';
import { selectSnapshots, type Selection } from '../core/repository/select-snapshots';
import type { Repository } from '../core/repository/repository';
import { defineFlags } from './args';
import type { Context } from './context';

export const SNAPSHOT_FILTER_FLAGS = defineFlags({
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots including tag[,tag,...] (can be specified multiple times)' },
  path: { type: 'strings', help: 'only consider snapshots including this (absolute) path (can be specified multiple times)' },
});

export function snapshotFilter(ctx: Context<typeof SNAPSHOT_FILTER_FLAGS>): SnapshotFilter {
  const f = ctx.flags;
  return { hosts: f.host, tags: f.tag, paths: f.path };
}

/**
 * restic's FindFilteredSnapshots: the snapshots the arguments name (each ID, or `latest` within
 * the filter), or, when none are named, every snapshot the filter selects.
 */
export async function findFiltered(repo: Repository, args: readonly string[], filter: SnapshotFilter, signal: AbortSignal): Promise<SnapshotEntry[]> {
  if (!args.length) return (await listSnapshots(repo, { signal })).filter((e) => matches(e.snapshot, filter));
  const found: SnapshotEntry[] = [];
  for (const a of args) found.push(await findSnapshot(repo, a, filter, signal));
  return found;
}

/** The snapshots named by the arguments and filter flags; an unreadable one is fatal. */
export async function selectReadable(ctx: Context<typeof SNAPSHOT_FILTER_FLAGS>, repo: Repository, args: readonly string[]): Promise<Selection['entries']> {
  const sel = await selectSnapshots(repo, args, snapshotFilter(ctx), ctx.signal);
  // Messages of unreadable snapshots already name them ("snapshot 1a2b3c4d: …").
  if (sel.unreadable.length) throw sel.unreadable[0]!.error;
  return sel.entries;
}
