// Backing up (restic internal/archiver): the archiver walks a SourceFS, reuses unchanged files
// from the parent snapshot, has changed files chunked, hashed, sealed and packed by a pool of
// file savers (saver-protocol.ts, one protocol for Node worker threads and browser workers),
// builds tree blobs bottom-up, and writes packs → index → snapshot in that order, so a
// repository is valid whenever a backup stops. Format: docs/restic-format.md §6–§10.
export { backup, type BackupOptions, type BackupResult, type BackupWarning } from './archiver';
export type { SourceFS } from './source';
