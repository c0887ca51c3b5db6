// `copy` (restic cmd_copy.go): snapshots from one repository into another with its own master
// key (and perhaps its own chunker polynomial: blobs are copied as blobs, never re-chunked).
// Every blob is read from the source, verified, re-encrypted with the target's key (and
// compressed as the target's settings say) and stored unless the target has it. Snapshots go
// in batches: their blobs first, then the target's index, then the snapshots themselves, with
// `parent` cleared and `original` naming the source snapshot, so copying again is a no-op.

import { CairnError } from '../errors';
import { encodeSnapshot } from '../data/snapshot';
import { snapshotString } from '../data/snapshot-string';
import type { ID } from '../id';
import { mapLimit } from '../concurrency/concurrency';
import { formatBytes } from '../progress';
import { silentPrinter, type Printer } from '../progress/printer';
import { BlobUploader } from '../repository/blob-uploader';
import { loadBlobsFromPack } from '../repository/pack-blobs';
import type { Repository } from '../repository/repository';
import type { SnapshotEntry } from '../repository/snapshots';
import { planCopy, type CopyPlan } from './collect';
import { byOriginal, copiedAs } from './similar';

export interface CopyOptions {
  signal?: AbortSignal;
  printer?: Printer;
  /** A batch of snapshots is saved once this many bytes were copied and … */
  batchBytes?: number;
  /** … this long has passed (restic: 100 packs' worth and one minute). */
  batchMs?: number;
  onProgress?: (packsDone: number, packsTotal: number) => void;
}

export interface CopyResult {
  copied: { from: ID; to: ID }[];
  skipped: { from: ID; existing: ID }[];
  blobs: number;
  bytes: number;
}

/** Copies `selected` source snapshots unless the target (whose snapshots are `targetSnapshots`) has them. */
export async function copySnapshots(
  src: Repository,
  dst: Repository,
  selected: readonly SnapshotEntry[],
  targetSnapshots: readonly SnapshotEntry[],
  opts: CopyOptions = {},
): Promise<CopyResult> {
  const pr = opts.printer ?? silentPrinter;
  const { signal } = opts;
  await src.loadIndex({ signal });
  await dst.loadIndex({ signal });
  const existing = byOriginal(targetSnapshots);
  const result: CopyResult = { copied: [], skipped: [], blobs: 0, bytes: 0 };
  const todo: SnapshotEntry[] = [];
  for (const sn of selected) {
    const copy = copiedAs(sn, existing);
    if (!copy) todo.push(sn);
    else {
      pr.v(`\n${snapshotString(sn.id, sn.snapshot)}`);
      pr.v(`skipping source snapshot ${sn.id.slice(0, 8)}, was already copied to snapshot ${copy.id.slice(0, 8)}`);
      result.skipped.push({ from: sn.id, existing: copy.id });
    }
  }
  const visited = new Set<ID>();
  const batchBytes = opts.batchBytes ?? (dst.packSize ?? 16 << 20) * 100;
  const batchMs = opts.batchMs ?? 60_000;
  while (todo.length) {
    const uploader = new BlobUploader(dst, { signal });
    const batch: SnapshotEntry[] = [];
    const started = Date.now();
    let size = 0;
    while (todo.length && (size < batchBytes || Date.now() - started < batchMs)) {
      const sn = todo.shift()!;
      batch.push(sn);
      pr.p(`\n${snapshotString(sn.id, sn.snapshot)}`);
      pr.p('  copy started, this may take a while...');
      const plan = await planCopy(src, uploader, visited, sn.snapshot.tree, signal);
      pr.v(`  copy ${plan.blobs} blobs with disk size ${formatBytes(plan.bytes)} in ${plan.packs.size} packfiles`);
      await copyBlobs(src, uploader, plan, opts);
      size += plan.bytes;
    }
    const stats = await uploader.finish();
    result.blobs += stats.blobs;
    result.bytes += stats.plainBytes;
    if (batch.length > 1) pr.p('');
    for (const sn of batch) result.copied.push({ from: sn.id, to: await saveCopy(dst, sn, pr, signal) });
  }
  return result;
}

async function copyBlobs(src: Repository, uploader: BlobUploader, plan: CopyPlan, opts: CopyOptions): Promise<void> {
  let done = 0;
  const readers = Math.max(2, Math.min(4, src.backend.connections));
  await mapLimit(plan.packs, readers, async ([pack, blobs]) => {
    await loadBlobsFromPack(
      src,
      pack,
      blobs,
      async (blob, plain, error) => {
        if (!plain)
          throw new CairnError(
            error?.code ?? 'BAD_PACK',
            `cannot copy ${blob.type} blob ${blob.id.slice(0, 8)} from pack ${pack.slice(0, 8)}: ${error?.message}`,
            { cause: error },
          );
        await uploader.save(blob.type, plain, blob.id);
      },
      { signal: opts.signal },
    );
    opts.onProgress?.(++done, plan.packs.size);
  });
}

async function saveCopy(dst: Repository, sn: SnapshotEntry, pr: Printer, signal?: AbortSignal): Promise<ID> {
  const copy = { ...sn.snapshot, parent: undefined, original: sn.snapshot.original ?? sn.id, unknown: undefined };
  const id = await dst.saveJSON('snapshots', encodeSnapshot(copy), signal);
  pr.p(`snapshot ${id.slice(0, 8)} saved, copied from source snapshot ${sn.id.slice(0, 8)}`);
  return id;
}
