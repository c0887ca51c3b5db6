// The repository index (docs/restic-format.md §7): index-file JSON codec and the in-memory
// master index that answers "is this blob stored, and where?".
export { encodeIndex, decodeIndex, type IndexPack, type SavedPack } from './index-file';
export { MasterIndex, type BlobLocation } from './master-index';
