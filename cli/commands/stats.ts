import { CairnError } from '../../core/errors';
import { listSnapshots, findSnapshot, matches, type SnapshotEntry } from '../../core/repository/snapshots';
import { walk } from '../../core/walker';
import type { FlagSpecs } from '../args';
import { openRepository, withLock, type Context } from '../context';
import { formatBytes } from '../output';

export const summary = 'Scan the repository and show basic statistics';
export const flags: FlagSpecs = {
  mode: { type: 'string', help: 'counting mode: restore-size (default), files-by-contents, blobs-per-file or raw-data' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots with the given host' },
  tag: { type: 'strings', help: 'only consider snapshots which include this tag[,tag,...]' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path' },
};

export async function run(ctx: Context): Promise<number> {
  const f = ctx.p.flags;
  const mode = (f.mode as string | undefined) ?? 'restore-size';
  if (!['restore-size', 'files-by-contents', 'blobs-per-file', 'raw-data'].includes(mode)) throw new CairnError('USAGE', `unknown mode "${mode}"`);
  const { repo } = await openRepository(ctx);
  const stats = await withLock(
    ctx,
    repo,
    false,
    async () => {
      await repo.loadIndex({ signal: ctx.signal });
      const filter = { hosts: f.host as string[], tags: f.tag as string[], paths: f.path as string[] };
      let snaps: SnapshotEntry[];
      if (ctx.p.args.length) snaps = await Promise.all(ctx.p.args.map((a) => findSnapshot(repo, a, filter, ctx.signal)));
      else snaps = (await listSnapshots(repo, { signal: ctx.signal })).filter((e) => matches(e.snapshot, filter));
      let files = 0,
        size = 0,
        blobCount = 0,
        uncompressed = 0;
      const seenBlobs = new Set<string>();
      const seenFiles = new Set<string>();
      const seenTrees = new Set<string>();
      const addBlob = (type: 'data' | 'tree', id: string) => {
        const k = type[0] + id;
        if (seenBlobs.has(k)) return;
        seenBlobs.add(k);
        const loc = repo.index.lookup(type, id);
        if (!loc) return;
        blobCount++;
        size += loc.length;
        uncompressed += loc.uncompressedLength || loc.length - 32;
      };
      for (const { snapshot } of snaps) {
        if (mode === 'raw-data') addBlob('tree', snapshot.tree);
        for await (const { path, node } of walk(repo, snapshot.tree, {
          signal: ctx.signal,
          enter: (it) => mode !== 'raw-data' || !seenTrees.has(it.node.subtree!),
        })) {
          if (mode === 'raw-data') {
            if (node.type === 'dir' && node.subtree) {
              seenTrees.add(node.subtree);
              addBlob('tree', node.subtree);
            }
            for (const b of node.content ?? []) addBlob('data', b);
            continue;
          }
          if (mode === 'restore-size') {
            if (node.type === 'file') size += node.size ?? 0;
            files++;
          } else if (mode === 'files-by-contents') {
            if (node.type !== 'file') continue;
            const k = (node.content ?? []).join();
            if (!seenFiles.has(k)) {
              seenFiles.add(k);
              files++;
              size += node.size ?? 0;
            }
          } else if (mode === 'blobs-per-file') {
            if (node.type !== 'file') continue;
            const k = (node.content ?? []).join();
            if (!seenFiles.has(k)) {
              seenFiles.add(k);
              files++;
            }
            for (const b of node.content ?? []) {
              if (!seenBlobs.has('d' + b)) {
                seenBlobs.add('d' + b);
                blobCount++;
                size += repo.index.plainSize('data', b) ?? 0;
              }
            }
          }
          void path;
        }
      }
      return { snapshots: snaps.length, files, size, blobCount, uncompressed };
    },
    true,
  );
  if (ctx.g.json) {
    const o: Record<string, unknown> = { total_size: stats.size, snapshots_count: stats.snapshots };
    if (mode === 'raw-data' || mode === 'blobs-per-file') o.total_blob_count = stats.blobCount;
    if (mode !== 'raw-data') o.total_file_count = stats.files;
    if (mode === 'raw-data') {
      o.total_uncompressed_size = stats.uncompressed;
      o.compression_ratio = stats.size ? stats.uncompressed / stats.size : 0;
    }
    ctx.out.stdout(JSON.stringify(o) + '\n');
    return 0;
  }
  let s = `scanning...\nStats in ${mode} mode:\n     Snapshots processed:  ${stats.snapshots}\n`;
  if (mode !== 'raw-data') s += `        Total File Count:  ${stats.files}\n`;
  if (mode === 'raw-data' || mode === 'blobs-per-file') s += `        Total Blob Count:  ${stats.blobCount}\n`;
  s += `              Total Size:  ${formatBytes(stats.size)}\n`;
  if (mode === 'raw-data') {
    s += `   Total Uncompressed Size:  ${formatBytes(stats.uncompressed)}\n`;
    s += `       Compression Ratio:  ${stats.size ? (stats.uncompressed / stats.size).toFixed(2) : '0.00'}x\n`;
  }
  ctx.out.stdout(s);
  return 0;
}
