// The repository (restic internal/repository, docs/restic-format.md §3–§5, §7, §12): key files and
// the master key, the config, unpacked files (snapshots, index, locks), blob reads through the
// index, blob writes through packers, and restic's locks. The only layer that knows crypto,
// compression and packs; backends below it store opaque bytes.
export { Repository, type InitOptions, type OpenOptions, type RepositoryOptions, type UnpackedType } from './repository';
export { Lock, listLocks, removeLocks, isStale, describeLock, type LockInfo, type LockOwner } from './lock';
export { listSnapshots, loadSnapshot, findSnapshot, findParent, parentAmong, type SnapshotEntry, type SnapshotFilter } from './snapshots';
