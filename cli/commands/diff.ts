import { CairnError } from '../../core/errors';
import { diffTrees, type DiffSide } from '../../core/diff';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { goStringify } from '../go-json-out';
import { formatBytes } from '../output';
import { resolveSnapshotArg } from '../snapshot-arg';

export const summary = 'Show differences between two snapshots';
export const usage = '[flags] snapshotID snapshotID';
export const description = `
The "diff" command shows differences from the first to the second snapshot. The
first characters in each line display what has happened to a particular file or
directory:

* +  The item was added
* -  The item was removed
* U  The metadata (access mode, timestamps, ...) for the item was updated
* M  The file's content was modified
* T  The type was changed, e.g. a file was made a symlink
* ?  Bitrot detected: The file's content has changed but all metadata is the same

To only compare files in specific subfolders, you can use the
"snapshotID:subfolder" syntax, where "subfolder" is a path within the
snapshot tree as shown by "cairn ls".

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  metadata: { type: 'bool', help: 'print changes in metadata' },
});

const sideJSON = (s: DiffSide) => ({ files: s.files, dirs: s.dirs, others: s.others, data_blobs: s.dataBlobs, tree_blobs: s.treeBlobs, bytes: s.bytes });
const pad = (n: number) => String(n).padStart(5);

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const [a, b] = ctx.args;
  if (a === undefined || b === undefined || ctx.args.length !== 2) throw new CairnError('USAGE', 'specify two snapshot IDs');
  await withRepository(ctx, 'read', async ({ repo }) => {
    const s1 = await resolveSnapshotArg(repo, a, {}, ctx.signal);
    const s2 = await resolveSnapshotArg(repo, b, {}, ctx.signal);
    if (!ctx.globals.json && !ctx.globals.quiet) ctx.out.stdout(`comparing snapshot ${s1.id.slice(0, 8)} to ${s2.id.slice(0, 8)}:\n\n`);
    await repo.loadIndex({ signal: ctx.signal });
    const stats = await diffTrees(repo, s1.tree, s2.tree, {
      metadata: ctx.flags.metadata === true,
      signal: ctx.signal,
      onError: (m) => ctx.out.stderr(m + '\n'),
      onChange: (c) => {
        if (ctx.globals.quiet) return;
        if (ctx.globals.json) ctx.out.stdout(goStringify({ message_type: 'change', path: c.path, modifier: c.modifier }) + '\n');
        else ctx.out.stdout(`${c.modifier.padEnd(5)}${c.path}\n`);
      },
    });
    if (ctx.globals.json) {
      const o = {
        message_type: 'statistics',
        source_snapshot: a,
        target_snapshot: b,
        changed_files: stats.changedFiles,
        added: sideJSON(stats.added),
        removed: sideJSON(stats.removed),
      };
      ctx.out.stdout(goStringify(o) + '\n');
      return;
    }
    const { added: ad, removed: rm } = stats;
    ctx.out.stdout(
      '\n' +
        `Files:       ${pad(ad.files)} new, ${pad(rm.files)} removed, ${pad(stats.changedFiles)} changed\n` +
        `Dirs:        ${pad(ad.dirs)} new, ${pad(rm.dirs)} removed\n` +
        `Others:      ${pad(ad.others)} new, ${pad(rm.others)} removed\n` +
        `Data Blobs:  ${pad(ad.dataBlobs)} new, ${pad(rm.dataBlobs)} removed\n` +
        `Tree Blobs:  ${pad(ad.treeBlobs)} new, ${pad(rm.treeBlobs)} removed\n` +
        `  Added:   ${formatBytes(ad.bytes).padEnd(5)}\n` +
        `  Removed: ${formatBytes(rm.bytes).padEnd(5)}\n`,
    );
  });
  return 0;
}
