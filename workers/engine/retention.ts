// Retention in the app: restic 0.18's forget (core/forget) on the open repository — a preview of
// what the rules keep (with restic's reasons) and remove, then the removal under restic's
// exclusive lock, decided again inside the lock from a fresh listing, then prune when the engine
// has it (./free-space.ts). The offline cache drops removed snapshot files (CachedBackend.remove)
// and the cached trees no remaining snapshot reaches.

import { GoTime, localZone } from '../../core/data/go-time';
import { CairnError } from '../../core/errors';
import {
  applyPolicy,
  checkGroups,
  checkPolicy,
  DEFAULT_GROUP_BY,
  describePolicy,
  groupKeyString,
  parsePolicy,
  policyString,
  removedIDs,
  removeSnapshots,
  type ForgetGroup,
  type PolicyInput,
} from '../../core/forget';
import { ProgressTracker, type ProgressSnapshot } from '../../core/progress';
import { Lock } from '../../core/repository/lock';
import type { SnapshotEntry } from '../../core/repository/snapshots';
import type { ID } from '../../core/id';
import type { ForgetPreview, ForgetRequest, ForgetResultView, PruneEstimate, RetentionScope } from '../tools-api';
import * as db from '../cache/db';
import { toEngineError } from '../errors';
import { freeSpace } from './free-space';
import type { Owner } from './open';
import { engineOwner } from './pack-journal';
import type { Session } from './session';
import { snapshotView } from './views';

/** The host name "this browser's snapshots" means: the app's setting, else the engine's. */
const hostOf = (scope: RetentionScope, owner: Owner) => scope.host || owner.hostname;

/** restic's group key for paths: sorted. */
const samePaths = (a: readonly string[], b: readonly string[]) => {
  const [x, y] = [[...a].sort(), [...b].sort()];
  return x.length === y.length && x.every((p, i) => p === y[i]);
};

/** The snapshots the rules apply to (see RetentionScope). */
function scoped(all: readonly SnapshotEntry[], scope: RetentionScope, owner: Owner): SnapshotEntry[] {
  const g = scope.group;
  if (g) {
    return all.filter(
      (e) => e.snapshot.hostname === g.host && samePaths(e.snapshot.paths ?? [], g.paths) && (g.tags ?? []).every((t) => (e.snapshot.tags ?? []).includes(t)),
    );
  }
  return scope.thisHostOnly ? all.filter((e) => e.snapshot.hostname === hostOf(scope, owner)) : [...all];
}

/** The policy applied to the snapshots in scope (restic's refusal of an empty policy first). */
function decide(entries: readonly SnapshotEntry[], input: PolicyInput): ForgetGroup[] {
  const policy = parsePolicy(input);
  checkPolicy(policy);
  return applyPolicy(entries, policy, GoTime.fromDate(new Date()), { groupBy: DEFAULT_GROUP_BY, zone: localZone });
}

export async function previewForget(
  s: Session,
  input: PolicyInput,
  owner: Owner,
  opts: RetentionScope & { withPrune?: boolean } = {},
  signal?: AbortSignal,
): Promise<ForgetPreview> {
  const policy = parsePolicy(input);
  const groups = decide(scoped(await s.snapshots(signal), opts, owner), input);
  const removed = removedIDs(groups);
  const preview: ForgetPreview = {
    host: opts.group?.host ?? hostOf(opts, owner),
    groups: groups.map((g) => ({
      label: groupKeyString(g.key) || 'all snapshots',
      keep: g.reasons.map((r) => ({ snapshot: snapshotView(r.entry), reasons: r.matches })),
      remove: g.remove.map(snapshotView),
    })),
    policy: policyString(policy),
    words: describePolicy(policy),
    removeCount: removed.length,
    keepCount: groups.reduce((n, g) => n + g.keep.length, 0),
  };
  if (opts.withPrune && freeSpace && !s.offline) {
    try {
      preview.prune = await estimate(s, removed, signal);
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      preview.pruneProblem = e instanceof Error ? e.message : String(e);
    }
  }
  return preview;
}

/** Prune's plan for the snapshots left, remembered while the repository and the choice stay the same. */
let lastEstimate: { key: string; value: Promise<PruneEstimate> } | undefined;
async function estimate(s: Session, removed: readonly ID[], signal?: AbortSignal): Promise<PruneEstimate> {
  const all = (await s.snapshots(signal)).map((e) => e.id);
  const key = JSON.stringify([s.repo.config.id, all, [...removed].sort()]);
  if (lastEstimate?.key !== key) {
    lastEstimate = { key, value: freeSpace!.estimate(s, new Set(removed), signal) };
    lastEstimate.value.catch(() => (lastEstimate = undefined));
  }
  return lastEstimate.value;
}

/** The IDs to remove: by the rules (refusing to empty a group, as restic 0.18), or as given. */
async function chooseRemoved(s: Session, req: ForgetRequest, owner: Owner, signal: AbortSignal): Promise<ID[]> {
  s.forgetSnapshots(); // decide on a fresh listing, taken under the lock
  const all = await s.snapshots(signal);
  if (req.ids?.length) {
    return req.ids.map((ref) => {
      const hit = all.filter((e) => e.id.startsWith(ref));
      if (hit.length !== 1) throw new CairnError(hit.length ? 'AMBIGUOUS_ID' : 'SNAPSHOT_NOT_FOUND', `no unique snapshot ${ref}`);
      return hit[0]!.id;
    });
  }
  if (!req.policy) throw new CairnError('BAD_POLICY', 'no policy and no snapshots were given');
  const groups = decide(scoped(all, req, owner), req.policy);
  checkGroups(groups, parsePolicy(req.policy));
  return removedIDs(groups);
}

export async function forget(
  s: Session,
  req: ForgetRequest,
  owner: Owner,
  signal: AbortSignal,
  onProgress?: (p: ProgressSnapshot) => void,
): Promise<ForgetResultView> {
  s.requireAccess('maintenance', req.prune ? 'removing snapshots and freeing space' : 'removing snapshots');
  s.requireOnline('Removing snapshots');
  const started = performance.now();
  const progress = new ProgressTracker('Removing snapshots', onProgress);
  const lock = await Lock.acquire(s.repo, await engineOwner(owner.hostname, owner.username), true, signal);
  try {
    const ids = await chooseRemoved(s, req, owner, signal);
    progress.total.files = ids.length;
    progress.totalsFinal = true;
    progress.tick(true);
    const failed = await removeSnapshots(s.repo, ids, {
      signal,
      onRemoved: () => {
        progress.done.files++;
        progress.tick();
      },
    });
    s.forgetSnapshots();
    const removed = ids.filter((id) => !failed.includes(id));
    const result: ForgetResultView = { removed, failed, durationMs: 0, forgetMs: Math.round(performance.now() - started) };
    // restic's `forget --prune` prunes only when snapshots were removed.
    if (req.prune && freeSpace && removed.length > 0) await pruneInto(result, s, signal, onProgress);
    else if (req.prune && !freeSpace) result.pruneSkipped = true;
    await dropUnreachableTrees(s, signal).catch(() => {});
    result.durationMs = Math.round(performance.now() - started);
    return result;
  } finally {
    await lock.release().catch(() => {});
  }
}

/**
 * Prune after a removal that happened: its failure (or cancel) is reported beside the removal
 * in `pruneError` instead of hiding that the snapshots are gone. The lock is still held.
 */
async function pruneInto(result: ForgetResultView, s: Session, signal: AbortSignal, onProgress?: (p: ProgressSnapshot) => void): Promise<void> {
  const t0 = performance.now();
  try {
    result.pruned = { ...(await freeSpace!.run(s, signal, onProgress)), durationMs: Math.round(performance.now() - t0) };
  } catch (e) {
    result.pruneError = toEngineError(e);
  }
}

/**
 * The offline tree cache keeps only what the remaining snapshots reach: trees of removed
 * snapshots no other snapshot shares are dropped (bucket repositories; the others have no cache).
 */
async function dropUnreachableTrees(s: Session, signal?: AbortSignal): Promise<number> {
  if (!s.cached) return 0;
  const repoId = s.repo.config.id;
  const reachable = new Set<ID>();
  let frontier = (await s.snapshots(signal)).map((e) => e.snapshot.tree);
  while (frontier.length) {
    const next: ID[] = [];
    for (const id of frontier) {
      if (reachable.has(id)) continue;
      reachable.add(id);
      for (const n of (await s.tree(id, signal)).nodes) if (n.type === 'dir' && n.subtree && !reachable.has(n.subtree)) next.push(n.subtree);
    }
    frontier = next;
  }
  const gone = (await db.objectNames(repoId, 'tree')).filter((id) => !reachable.has(id));
  await db.deleteObjects(repoId, 'tree', gone);
  return gone.length;
}
