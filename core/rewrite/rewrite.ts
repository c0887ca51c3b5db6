// `rewrite` (restic cmd_rewrite.go, 0.15+): new snapshots without the entries an exclude
// pattern matches, or with a new host or time. The trees below each snapshot are rewritten
// (only changed ones are stored), the summary's file count and size are recounted, and the
// new snapshot records the old one as `original`; the old one is removed only with `forget`.

import { GoTime } from '../data/go-time';
import type { SnapshotSummary } from '../data/snapshot';
import { CairnError, serializeError } from '../errors';
import { snapshotString } from '../data/snapshot-string';
import type { Repository } from '../repository/repository';
import type { SnapshotEntry } from '../repository/snapshots';
import { silentPrinter, type Printer } from '../progress/printer';
import { replaceSnapshot, type SnapshotFilterFn } from './replace-snapshot';
import { TreeRewriter } from './tree-rewriter';

export interface RewriteOptions {
  /** True for a path ("/home/u/file", as stored in the snapshot) to leave out. */
  exclude?: (path: string) => boolean;
  /** Add a summary where there is none (restic --snapshot-summary). */
  snapshotSummary?: boolean;
  newHost?: string;
  newTime?: GoTime;
  dryRun?: boolean;
  forget?: boolean;
  signal?: AbortSignal;
  printer?: Printer;
  /** Each excluded path (restic prints these at -vv). */
  onExcluded?: (path: string) => void;
}

const EMPTY_SUMMARY: SnapshotSummary = {
  backupStart: GoTime.zero,
  backupEnd: GoTime.zero,
  filesNew: 0,
  filesChanged: 0,
  filesUnmodified: 0,
  dirsNew: 0,
  dirsChanged: 0,
  dirsUnmodified: 0,
  dataBlobs: 0,
  treeBlobs: 0,
  dataAdded: 0,
  dataAddedPacked: 0,
  totalFilesProcessed: 0,
  totalBytesProcessed: 0,
};

/** The tree filter: excluded nodes dropped, files and their bytes counted for the summary. */
function excludeFilter(repo: Repository, opts: RewriteOptions): SnapshotFilterFn {
  return async (entry, uploader) => {
    let files = 0;
    let bytes = 0;
    const rewriter = new TreeRewriter({
      signal: opts.signal,
      disableNodeCache: true,
      rewriteNode: (node, path) => {
        if (opts.exclude?.(path)) {
          opts.onExcluded?.(path);
          return undefined;
        }
        if (node.type === 'file') {
          files++;
          bytes += node.size ?? 0;
        }
        return node;
      },
    });
    const tree = await rewriter.rewrite(repo, uploader, '/', entry.snapshot.tree);
    const summary = { ...(entry.snapshot.summary ?? EMPTY_SUMMARY), totalFilesProcessed: files, totalBytesProcessed: bytes };
    return { tree, summary };
  };
}

/** Rewrites `entries` (already chosen); returns how many snapshots were (or would be) changed. */
export async function rewriteSnapshots(repo: Repository, entries: readonly SnapshotEntry[], opts: RewriteOptions): Promise<number> {
  const pr = opts.printer ?? silentPrinter;
  await repo.loadIndex({ signal: opts.signal });
  const filter: SnapshotFilterFn = opts.exclude || opts.snapshotSummary ? excludeFilter(repo, opts) : async (e) => ({ tree: e.snapshot.tree });
  let changed = 0;
  for (const entry of entries) {
    pr.p(`\n${snapshotString(entry.id, entry.snapshot)}`);
    const r = await replaceSnapshot(repo, entry, filter, {
      dryRun: opts.dryRun,
      forget: opts.forget,
      addTag: 'rewrite',
      newHost: opts.newHost,
      newTime: opts.newTime,
      signal: opts.signal,
      printer: pr,
    }).catch((e: unknown) => {
      throw unableTo('rewrite', entry.id, e);
    });
    if (r.changed) changed++;
  }
  return changed;
}

/** restic's "unable to rewrite snapshot ID …" around what went wrong (the code kept). */
export function unableTo(verb: string, id: string, e: unknown): CairnError {
  const s = serializeError(e);
  if (s.code === 'ABORTED') return e as CairnError;
  return new CairnError(s.code, `unable to ${verb} snapshot ID "${id.slice(0, 8)}": ${s.message}`, { cause: e, detail: s.detail });
}
