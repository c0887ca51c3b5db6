// Repository statistics as restic's `stats` counts them (cmd/restic/cmd_stats.go): the four
// counting modes over a set of snapshots, and the blobs a set of trees uses (restic
// FindUsedBlobs), which raw-data mode and others build on.
export { snapshotStats, type StatsMode, type Stats, STATS_MODES } from './stats';
export { collectUsedBlobs, type UsedBlobs } from './used-blobs';
