// Copying snapshots between repositories with different master keys (restic cmd_copy.go): what
// to transfer (collect.ts), whether a snapshot was copied before (similar.ts), and the batches
// of blobs → index → snapshots (copy.ts).
export { copySnapshots, type CopyOptions, type CopyResult } from './copy';
export { similarSnapshots, byOriginal, copiedAs } from './similar';
export { planCopy, type CopyPlan } from './collect';
