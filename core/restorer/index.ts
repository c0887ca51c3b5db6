// Restoring snapshots: the pack-ordered restorer (every blob verified by SHA-256) and the
// RestoreTarget interface each runtime implements.
export { restore, type RestoreOptions, type RestoreResult, type RestoreError, type RestoreItem } from './restorer';
export { OVERWRITE_MODES, type OverwriteMode } from './overwrite';
export type { RestoreTarget, FileWriter } from './target';
