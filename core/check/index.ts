// Repository checking (restic internal/checker): index ↔ packs consistency, every snapshot's
// trees and referenced blobs, and with readData every pack's bytes, header and blobs.
export { check, type CheckOptions, type CheckResult, type CheckProblem } from './check';
export { parseSubset, selectSubset, type Subset, type SubsetChoice } from './subset';
