// Repository checking (restic internal/checker): index ↔ packs consistency (packs.ts), every
// snapshot (trees.ts) and the trees and referenced blobs below it (structure.ts), key, lock
// and index files (objects.ts), with readData every chosen pack's bytes, header and blobs
// (read-packs.ts, subset.ts), and for damaged data the files that use it (affected.ts).
// Problems name the damaged object (problems.ts).
export { check, type CheckOptions, type CheckResult, type CheckProblem } from './check';
export { parseSubset, selectSubset, type Subset, type SubsetChoice } from './subset';
