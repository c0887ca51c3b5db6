// `repair snapshots` (restic cmd_repair_snapshots.go, 0.16+): each snapshot's trees rewritten
// so that everything they reference exists. A file loses the chunks no index lists (its size
// becomes what is left), a directory whose tree cannot be loaded becomes empty, a snapshot
// whose root tree cannot be loaded is removed. Changed snapshots are saved anew (tag
// "repaired", `original` set); with `forget` the old ones are removed. Relies on a correct
// index: run repair index (and repair packs) first.

import type { Node } from '../data';
import { goQuote } from '../data/go-quote';
import { snapshotString } from '../data/snapshot-string';
import type { Repository } from '../repository/repository';
import type { SnapshotEntry } from '../repository/snapshots';
import { silentPrinter, type Printer } from '../progress/printer';
import { replaceSnapshot } from '../rewrite/replace-snapshot';
import { TreeRewriter } from '../rewrite/tree-rewriter';
import { unableTo } from '../rewrite/rewrite';

export interface RepairSnapshotsOptions {
  dryRun?: boolean;
  forget?: boolean;
  signal?: AbortSignal;
  printer?: Printer;
}

/** A file node with only the chunks the index has; its size their sum. */
function repairFile(repo: Repository, node: Node, path: string, pr: Printer): Node {
  let ok = true;
  let size = 0;
  const content: string[] = [];
  for (const id of node.content ?? []) {
    const plain = repo.index.plainSize('data', id);
    if (plain === undefined) ok = false;
    else {
      content.push(id);
      size += plain;
    }
  }
  if (!ok) pr.p(`  file ${goQuote(path)}: removed missing content`);
  else if (size !== (node.size ?? 0)) pr.p(`  file ${goQuote(path)}: fixed incorrect size`);
  return { ...node, content, size };
}

export function repairRewriter(repo: Repository, pr: Printer, signal?: AbortSignal): TreeRewriter {
  return new TreeRewriter({
    signal,
    allowUnstableSerialization: true,
    rewriteNode: (node, path) => {
      if (node.type === 'irregular') {
        pr.p(`  file ${goQuote(path)}: removed node with invalid type ${goQuote(node.type)}`);
        return undefined;
      }
      return node.type === 'file' ? repairFile(repo, node, path, pr) : node;
    },
    rewriteFailedTree: (_id, path) => {
      if (path === '/') {
        pr.p(`  dir ${goQuote(path)}: not readable`);
        return undefined;
      }
      pr.p(`  dir ${goQuote(path)}: replaced with empty directory`);
      return [];
    },
  });
}

/** Repairs `entries` (already chosen); returns how many snapshots were (or would be) changed. */
export async function repairSnapshots(repo: Repository, entries: readonly SnapshotEntry[], opts: RepairSnapshotsOptions = {}): Promise<number> {
  const pr = opts.printer ?? silentPrinter;
  await repo.loadIndex({ signal: opts.signal });
  const rewriter = repairRewriter(repo, pr, opts.signal);
  let changed = 0;
  for (const entry of entries) {
    pr.p(`\n${snapshotString(entry.id, entry.snapshot)}`);
    const r = await replaceSnapshot(repo, entry, async (e, uploader) => ({ tree: await rewriter.rewrite(repo, uploader, '/', e.snapshot.tree) }), {
      dryRun: opts.dryRun,
      forget: opts.forget,
      addTag: 'repaired',
      signal: opts.signal,
      printer: pr,
    }).catch((e: unknown) => {
      throw unableTo('rewrite', entry.id, e);
    });
    if (r.changed) changed++;
  }
  return changed;
}
