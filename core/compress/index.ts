// zstd for blobs and unpacked files (restic v2 compression, docs/restic-format.md §11): one zstd
// frame per blob / per unpacked file. zstd-codec 0.1.5 aborts with OOM on inputs ≥ 5 MiB
// (fixed 16 MiB heap) while restic blobs reach 8 MiB; @bokuweb/zstd-wasm's build grows its
// heap and round-trips 8 MiB both ways, so we bind that wasm (zstd.ts).
export { initZstd, zstdReady, compress, decompress, ZSTD_DEFAULT_LEVEL } from './zstd';
