// Files drop out of memory only when V8 collects them, and V8 does not see what they cost.
//
// A File (from getFile(), a clone posted to a worker, a webkitdirectory entry) holds a
// connection to its blob in the browser process: memory in this renderer and in the browser
// process, beside a JS wrapper of a few dozen bytes. V8 starts a full collection when its own
// heap grows, or when ArrayBuffer memory grows by tens of MiB; a stream of small Files does
// neither, and holds several times what it needs in the renderer and the browser process until
// something else makes V8 collect (Chromium's memory-infra; figures in bench/README.md).
//
// So code that makes many Files tells this module, which counts each as FILE_WEIGHT bytes of
// garbage (../../core/memory/garbage.ts): a collection is asked for every ~2000 Files.

import { unseenGarbageMade } from '../../core/memory/garbage';

/** What a File is counted as: ~12 KiB in the renderer and ~6 KiB in the browser process. */
export const FILE_WEIGHT = 4 << 10;

/** Records `n` Files made (and soon dropped) by this thread. */
export function filesMade(n = 1): void {
  unseenGarbageMade(n * FILE_WEIGHT);
}
