// Counts the files and bytes a backup will visit, alongside the backup itself, so progress
// can show totals and an ETA (restic's scanner does the same).

import type { ProgressTracker } from '../progress';
import type { SourceEntry, SourceFS } from './source';

export async function scanTotals(
  source: SourceFS,
  paths: string[],
  exclude: ((path: string, entry: SourceEntry) => boolean) | undefined,
  progress: ProgressTracker,
  signal?: AbortSignal,
): Promise<void> {
  const ignore = () => {};
  const visit = async (entry: SourceEntry): Promise<void> => {
    if (signal?.aborted || exclude?.(entry.path, entry)) return;
    if (entry.node.type === 'dir') {
      for (const child of await source.readDir(entry, ignore, signal)) await visit(child);
    } else {
      progress.total.files++;
      if (entry.node.type === 'file') progress.total.bytes += entry.size;
    }
  };
  for (const p of paths) {
    const entry = await source.stat(p, signal).catch(() => undefined);
    if (entry) await visit(entry);
  }
  progress.totalsFinal = true;
}
