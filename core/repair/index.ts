// Repairing a damaged repository as restic's `repair` commands do: the index rebuilt from the
// packs (repair-index.ts), intact blobs salvaged from damaged packs (repair-packs.ts), and
// snapshots rewritten to reference only what exists (repair-snapshots.ts).
export { repairIndex, type RepairIndexOptions, type RepairIndexResult } from './repair-index';
export { repairPacks, type RepairPacksOptions, type RepairPacksResult } from './repair-packs';
export { repairSnapshots, repairRewriter, type RepairSnapshotsOptions } from './repair-snapshots';
