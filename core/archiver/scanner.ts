// Counts the files and bytes a backup will visit, alongside the backup itself, so progress
// can show totals and an ETA (restic's scanner does the same).
//
// Directories are listed several at once, newest first, each one's subdirectories first to
// last (so the scan goes depth-first in the walk's order, ahead of it). Where listing costs
// round trips rather than CPU (a picked folder in the browser: a getFile() request to the
// browser process per file), one directory at a time left the scan, and the walk sharing its
// listings, waiting on latency.

import type { ProgressTracker } from '../progress';
import type { SourceEntry, SourceFS } from './source';

/** Directories listed at once. */
const SCAN_PARALLEL = 8;

export async function scanTotals(
  source: SourceFS,
  paths: string[],
  exclude: ((path: string, entry: SourceEntry) => boolean) | undefined,
  progress: ProgressTracker,
  signal?: AbortSignal,
  parallel = SCAN_PARALLEL,
): Promise<void> {
  const ignore = () => {};
  const dirs: SourceEntry[] = [];
  const visit = (entry: SourceEntry): void => {
    if (signal?.aborted || exclude?.(entry.path, entry)) return;
    if (entry.node.type === 'dir') dirs.push(entry);
    else {
      progress.total.files++;
      if (entry.node.type === 'file') progress.total.bytes += entry.size;
    }
  };
  for (const p of paths) {
    const entry = await source.stat(p, signal).catch(() => undefined);
    if (entry) visit(entry);
  }
  await new Promise<void>((done) => {
    let active = 0;
    const pump = (): void => {
      while (active < Math.max(1, parallel) && dirs.length > 0 && !signal?.aborted) {
        const dir = dirs.pop()!;
        active++;
        source
          .readDir(dir, ignore, signal)
          // Last to first, so the first subdirectory is listed first, as the walk does.
          .then((children) => {
            for (let i = children.length - 1; i >= 0; i--) visit(children[i]!);
          }, ignore)
          .finally(() => {
            active--;
            pump();
          });
      }
      if (active === 0 && (dirs.length === 0 || signal?.aborted)) done();
    };
    pump();
  });
  progress.totalsFinal = true;
}
