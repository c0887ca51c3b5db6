// Comparing two snapshot trees as restic's `diff` does (cmd/restic/cmd_diff.go, 0.18): the
// changed paths with restic's modifiers (+ - M T U ?) and the statistics block (files,
// folders and others added/removed, and the blobs only one side uses).
export { diffTrees, nodesEqual, type DiffChange, type DiffOptions, type DiffStats, type DiffSide } from './diff';
