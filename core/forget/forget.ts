// restic's `forget` decision for a whole repository (cmd/restic/cmd_forget.go): group the
// snapshots, apply the policy to each group, and the two refusals restic 0.18 makes before
// it removes anything.

import { CairnError } from '../errors';
import type { GoTime, ZoneRules } from '../data/go-time';
import type { ID } from '../id';
import type { SnapshotEntry } from '../repository/snapshots';
import { decideGroup, type GroupDecision } from './decide';
import { DEFAULT_GROUP_BY, groupKeyString, groupSnapshots, type GroupBy, type GroupKey } from './group';
import { isEmptyPolicy, type ForgetPolicy } from './policy';

export interface ForgetGroup extends GroupDecision {
  key: GroupKey;
}

export interface ApplyOptions {
  /** default host,paths as restic */
  groupBy?: GroupBy;
  /** the zone of the machine applying the policy (see DecideOptions.zone) */
  zone?: ZoneRules;
}

/** The policy applied to every group of `entries`; groups ordered by key, snapshots newest first. */
export function applyPolicy(entries: readonly SnapshotEntry[], policy: ForgetPolicy, now: GoTime, opts: ApplyOptions = {}): ForgetGroup[] {
  return groupSnapshots(entries, opts.groupBy ?? DEFAULT_GROUP_BY).map((g) => ({ key: g.key, ...decideGroup(g.entries, policy, { now, zone: opts.zone }) }));
}

/** The IDs every group removes. */
export function removedIDs(groups: readonly ForgetGroup[]): ID[] {
  return groups.flatMap((g) => g.remove.map((e) => e.id));
}

/**
 * restic 0.18 refuses an empty policy (it would keep nothing) unless removing everything the
 * filters select is asked for explicitly; with `filtered` false that is refused too.
 */
export function checkPolicy(policy: ForgetPolicy, opts: { allowRemoveAll?: boolean; filtered?: boolean } = {}): void {
  if (!isEmptyPolicy(policy)) return;
  if (!opts.allowRemoveAll) throw new CairnError('BAD_POLICY', 'no policy was specified, no snapshots will be removed');
  if (!opts.filtered) throw new CairnError('BAD_POLICY', '--unsafe-allow-remove-all is not allowed unless a snapshot filter option is specified');
}

/**
 * restic 0.18 (#4568): a non-empty policy that keeps nothing of a group — a --keep-tag typo,
 * say — stops the whole run before anything is removed.
 */
export function checkGroups(groups: readonly ForgetGroup[], policy: ForgetPolicy): void {
  if (isEmptyPolicy(policy)) return;
  const g = groups.find((x) => x.keep.length === 0);
  if (g) {
    throw new CairnError('FORGET_REFUSED', `refusing to delete last snapshot of snapshot group "${groupKeyString(g.key)}"`, {
      detail: { group: g.key },
    });
  }
}
