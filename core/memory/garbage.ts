// Short-lived memory that V8 is slow to collect, and a hint that makes it collect sooner.
//
// WebCrypto hands every result back in a new ArrayBuffer, zstd's output is copied out of its
// memory, a batch of small files arrives in one fresh buffer: a backup makes garbage about the
// size of its data, and more. V8 counts ArrayBuffer memory as external and, past a soft limit,
// only starts incremental marking, which advances with the (small) JS heap's allocation. Files
// (../../workers/source/file-garbage.ts) are worse: V8 does not see what they cost at all.
//
// So code that makes such garbage tells this module, and every NUDGE_EVERY bytes of it, it
// allocates (and drops) one large ArrayBuffer that is never written: V8 counts its size as
// external memory and collects at once, while its pages, mapped fresh and never touched, cost
// no resident memory. It roughly halves a worker's peak while encrypting through WebCrypto,
// in the same time (bench/probes/garbage-cost.mjs; figures in bench/README.md).

const NUDGE_EVERY = 8 << 20;
const NUDGE_BYTES = 64 << 20;
/** Only browsers are nudged: the Node CLI has native crypto and its own measurements. */
const IN_BROWSER =
  typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
  typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';

let made = 0;

/**
 * Buffers smaller than this are not counted: they are left to the young generation's
 * collections, which a thread's own JS allocations bring about often enough, rather than
 * asking for full ones for tens of thousands of blobs of a few KiB.
 */
const SMALL = 32 << 10;

/**
 * What one file backed up or restored is counted as: the small JS garbage of its job, promises
 * and messages, a collection every ~2000 files.
 */
export const FILE_GARBAGE = 4 << 10;

/** Records a buffer of `bytes` made and soon dropped by this thread. */
export function garbageMade(bytes: number): void {
  if (bytes >= SMALL) unseenGarbageMade(bytes);
}

/** Records many small buffers, `bytes` in all, made (or received from another thread) together and soon dropped. */
export function smallGarbageMade(bytes: number): void {
  unseenGarbageMade(bytes);
}

/** Records `bytes` of memory V8 does not see (a File's, in Blink and the browser process), soon dropped. */
export function unseenGarbageMade(bytes: number): void {
  made += bytes;
  if (made < NUDGE_EVERY) return;
  made = 0;
  allocateUntouched(NUDGE_BYTES);
}

/**
 * Collects now: for the end of a backup or restore, whose garbage (a backup of many small
 * files leaves tens of MiB of ArrayBuffers and JS objects in the engine) would otherwise stay
 * until something else allocates, or V8's memory reducer runs seconds later.
 */
export function collectSoon(): void {
  made = 0;
  allocateUntouched(COLLECT_BYTES);
}

/**
 * Allocates and drops `bytes` in a browser, never written. Out of address space there is no
 * hint this time (V8's memory reducer still collects once the thread has been idle a while).
 */
function allocateUntouched(bytes: number): void {
  if (!IN_BROWSER) return;
  try {
    held = new ArrayBuffer(bytes);
    held = undefined;
  } catch {
    // see above
  }
}

/**
 * A buffer this large (never touched, so it costs address space, not memory) makes V8 collect
 * all garbage at once, the memory-reducing way; NUDGE_BYTES only starts incremental marking,
 * which on an idle thread did not finish, leaving the heap's garbage until V8's memory
 * reducer ran seconds later; this one frees it at once.
 */
const COLLECT_BYTES = 256 << 20;

/** Module-level, so no compiler can prove the allocation unobservable and drop it. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- written, never read: that is the point
let held: ArrayBuffer | undefined;

/** For tests: bytes recorded since the last nudge, and the bytes between nudges. */
export const garbageSinceNudge = (): number => made;
export const GARBAGE_PER_NUDGE = NUDGE_EVERY;
