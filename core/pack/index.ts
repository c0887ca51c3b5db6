// Pack files (docs/restic-format.md §6): Blob_1 … Blob_n || sealed header || header length (u32 LE).
// Writing (Packer), reading the header from the tail (readPackHeader) and the entry codec.
export { Packer, DEFAULT_PACK_SIZE, type FinishedPack } from './packer';
export { readPackHeader, expectedPackSize } from './reader';
export { encodeHeader, parseHeader, entrySize, MAX_HEADER_SIZE, type BlobType, type PackedBlob } from './header';
export { PackEntries, type EntryView } from './entries';
