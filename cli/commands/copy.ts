import { copySnapshots } from '../../core/copy';
import { listSnapshots, matches } from '../../core/repository/snapshots';
import { defineFlags } from '../args';
import { withLock, withRepository, type Context } from '../context';
import { cliPrinter } from '../printer';
import { FROM_REPO_FLAGS, openSecondary, secondaryOptions } from '../secondary-repo';
import { SNAPSHOT_FILTER_FLAGS, selectReadable, snapshotFilter } from '../snapshot-filter';

export const summary = 'Copy snapshots from one repository to another';

export const flags = defineFlags({ ...FROM_REPO_FLAGS, ...SNAPSHOT_FILTER_FLAGS });

/** `cairn -r DEST copy --from-repo SRC [ID…]`: the source is read-locked, the destination append-locked. */
export async function run(ctx: Context<typeof flags>): Promise<number> {
  const from = await secondaryOptions(ctx);
  const { repo: src } = await openSecondary(ctx, from);
  const pr = cliPrinter(ctx);
  await withLock(ctx, src, 'read', () =>
    withRepository(ctx, 'append', async ({ repo: dst }) => {
      const selected = await selectReadable(ctx, src, ctx.args);
      const filter = snapshotFilter(ctx);
      const target = (await listSnapshots(dst, { signal: ctx.signal })).filter((e) => matches(e.snapshot, filter));
      await copySnapshots(src, dst, selected, target, { signal: ctx.signal, printer: pr });
    }),
  );
  return 0;
}
