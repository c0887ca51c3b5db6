// Bounded concurrency (docs/architecture.md, conventions 3): mapLimit instead of an unbounded Promise.all over
// a directory or a list of packs, deferred promises, a macrotask hop, a semaphore, and a count of work running.
export { mapLimit, deferred, macrotask } from './concurrency';
export { Semaphore } from './semaphore';
export { Running } from './running';
