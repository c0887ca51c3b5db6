// Short-lived memory V8 is slow to see (ArrayBuffers of WebCrypto results, zstd output, batches
// of small files): a meter of such garbage and the nudge that makes the engine's threads
// collect it sooner (garbage.ts explains the measurements).
export { FILE_GARBAGE, garbageMade, smallGarbageMade, unseenGarbageMade, collectSoon } from './garbage';
