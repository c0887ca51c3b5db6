import { CairnError } from '../../core/errors';
import { snapshotStats, STATS_MODES, type Stats } from '../../core/stats';
import { defineFlags, oneOf } from '../args';
import { withRepository, type Context } from '../context';
import { formatBytes } from '../output';
import { findFiltered } from '../snapshot-filter';

export const summary = 'Scan the repository and show basic statistics';
export const usage = '[flags] [snapshot ID] [...]';
export const description = `
The "stats" command walks one or multiple snapshots in a repository
and accumulates statistics about the data stored therein. It reports
on the number of unique files and their sizes, according to one of
the counting modes as given by the --mode flag.

It operates on all snapshots matching the selection criteria or all
snapshots if nothing is specified. The special snapshot ID "latest"
is also supported.

The modes are:

* restore-size: (default) Counts the size of the restored files.
* files-by-contents: Counts total size of unique files, where a file is
  considered unique if it has unique contents.
* raw-data: Counts the size of blobs in the repository, regardless of
  how many files reference them.
* blobs-per-file: A combination of files-by-contents and raw-data.

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;
export const flags = defineFlags({
  mode: { type: 'string', help: 'counting mode: restore-size (default), files-by-contents, blobs-per-file or raw-data' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots with the given host (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots which include this taglist in the format `tag[,tag,...]` (can be specified multiple times)' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path (can be specified multiple times)' },
});

/** restic 0.18's statsContainer JSON: omitempty fields left out when zero. */
function statsJSON(s: Stats): Record<string, unknown> {
  const o: Record<string, unknown> = { total_size: s.totalSize };
  if (s.totalUncompressedSize) o.total_uncompressed_size = s.totalUncompressedSize;
  if (s.compressionRatio) o.compression_ratio = s.compressionRatio;
  if (s.compressionProgress) o.compression_progress = s.compressionProgress;
  if (s.compressionSpaceSaving) o.compression_space_saving = s.compressionSpaceSaving;
  if (s.totalFileCount) o.total_file_count = s.totalFileCount;
  if (s.totalBlobCount) o.total_blob_count = s.totalBlobCount;
  o.snapshots_count = s.snapshots;
  return o;
}

function statsText(mode: string, s: Stats): string {
  let t = `Stats in ${mode} mode:\n     Snapshots processed:  ${s.snapshots}\n`;
  if (s.totalBlobCount) t += `        Total Blob Count:  ${s.totalBlobCount}\n`;
  if (s.totalFileCount) t += `        Total File Count:  ${s.totalFileCount}\n`;
  if (s.totalUncompressedSize) t += ` Total Uncompressed Size:  ${formatBytes(s.totalUncompressedSize)}\n`;
  t += `              Total Size:  ${formatBytes(s.totalSize)}\n`;
  if (s.compressionProgress) t += `    Compression Progress:  ${s.compressionProgress.toFixed(2)}%\n`;
  if (s.compressionRatio) t += `       Compression Ratio:  ${s.compressionRatio.toFixed(2)}x\n`;
  if (s.compressionSpaceSaving) t += `Compression Space Saving:  ${s.compressionSpaceSaving.toFixed(2)}%\n`;
  return t;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const f = ctx.flags;
  const modeText = f.mode ?? 'restore-size';
  const mode = oneOf(STATS_MODES, modeText);
  if (!mode) throw new CairnError('USAGE', `unknown counting mode: ${modeText} (use the -h flag to get a list of supported modes)`);
  const stats = await withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      const snaps = await findFiltered(repo, ctx.args, { hosts: f.host, tags: f.tag, paths: f.path }, ctx.signal);
      if (!ctx.globals.json) ctx.out.stdout('scanning...\n');
      return snapshotStats(repo, snaps, mode, ctx.signal);
    },
    { loadIndex: true },
  );
  ctx.out.stdout(ctx.globals.json ? JSON.stringify(statsJSON(stats)) + '\n' : statsText(mode, stats));
  return 0;
}
