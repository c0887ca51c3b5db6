// Repository checking (restic internal/checker): index ↔ packs consistency (packs.ts), every
// snapshot's trees and referenced blobs (trees.ts), key, lock and index files (objects.ts),
// with readData every pack's bytes, header and blobs, and for damaged data the files that use
// it (affected.ts). Problems name the damaged object (problems.ts).
export { check, type CheckOptions, type CheckResult, type CheckProblem } from './check';
