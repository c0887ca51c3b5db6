// Restoring snapshots: the pack-ordered restorer (every blob verified by SHA-256) and the
// RestoreTarget interface each runtime implements.
export { restore, type RestoreOptions, type RestoreResult, type RestoreError } from './restorer';
export type { RestoreTarget, FileWriter } from './target';
