// The storage layer: a dumb Backend (save / ranged load / stat / list / remove of named byte
// strings, restic's internal/backend) in restic's repository layout (doc/design.rst,
// "Repository Format"), with retry and concurrency caps as decorators around any backend:
// withRetry(withConcurrencyLimit(backend)). It knows nothing of crypto, packs or indexes.
// The suite every backend runs and the fault-injecting decorator are test code
// (test/helpers/backend-conformance.ts, fault-backend.ts). The Node directory backend lives in
// cli/adapters/local-backend.

export * from './backend';
export { MemoryBackend, type MemoryBackendOptions } from './mem';
export { FsaBackend, type FsaBackendOptions } from './fsa';
export { withRetry, isRetryableError, type RetryOptions, type RetryInfo } from './retry';
export { withConcurrencyLimit } from './limit';
export { resolveRange, checkLoadOptions, outOfRangeError, type ByteRange } from './range';
export { TYPE_DIRS, DATA_SUBDIRS, repositoryDirs, pathSegments, checkHandle, isListableName, tempName, isTempName } from './local-layout';
