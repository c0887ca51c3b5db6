// core/forget owns retention: which snapshots restic's `forget` keeps and which it removes,
// exactly as restic 0.18 decides (internal/data/snapshot_policy.go, snapshot_group.go,
// cmd/restic/cmd_forget.go; doc/060_forget.rst), so `cairn forget`, the app and
// `restic forget` agree on every repository. Reading a policy from restic's option text,
// grouping, the per-group walk with its reasons ("daily snapshot", "oldest monthly
// snapshot", …), restic's refusals, a plain-words description, and removing the snapshot
// files. It never touches packs or the index: freeing space is prune's job.
//
// Time: every bucket is read from a snapshot's time in the UTC offset it was stored with
// (core/data/go-time.ts); the keep-within windows end at the newest snapshot that is not in
// the future, and are computed with Go's AddDate in the zone restic would use (DecideOptions).

export { ZERO_DURATION, formatDuration, isZeroDuration, parseDuration, windowStart, type Duration } from './duration';
export {
  COUNT_RULES,
  POLICY_OPTIONS,
  WITHIN_RULES,
  emptyPolicy,
  formatTagList,
  isEmptyPolicy,
  parseCount,
  parsePolicy,
  parseWithin,
  policyString,
  splitTagList,
  type CountRule,
  type ForgetPolicy,
  type PolicyInput,
  type WithinRule,
} from './policy';
export { dayBucket, eachBucket, hourBucket, monthBucket, weekBucket, yearBucket, type Bucket } from './buckets';
export {
  DEFAULT_GROUP_BY,
  compareGroupKeys,
  formatGroupBy,
  groupKeyString,
  groupSnapshots,
  parseGroupBy,
  type GroupBy,
  type GroupKey,
  type SnapshotGroup,
} from './group';
export { decideGroup, latestTime, newestFirst, type DecideOptions, type GroupDecision, type KeepReason } from './decide';
export { applyPolicy, checkGroups, checkPolicy, removedIDs, type ApplyOptions, type ForgetGroup } from './forget';
export { describePolicy, describeRules, durationInWords } from './describe';
export { removeSnapshots, type RemoveOptions } from './remove';
