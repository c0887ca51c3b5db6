// Rewriting snapshots (restic internal/walker/rewriter.go and cmd_rewrite.go): trees rewritten
// node by node (tree-rewriter.ts), a new snapshot saved in place of the old one
// (replace-snapshot.ts), and the `rewrite` command's exclude filter (rewrite.ts).
export { TreeRewriter, joinPath, type NodeRewrite, type TreeRewriteOptions } from './tree-rewriter';
export { replaceSnapshot, type ReplaceOptions, type ReplaceResult, type SnapshotFilterFn, type FilterResult } from './replace-snapshot';
export { rewriteSnapshots, type RewriteOptions } from './rewrite';
