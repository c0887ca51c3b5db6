import { CairnError } from '../../core/errors';
import { defineFlags } from '../args';
import { openRepository, withLock, type Context } from '../context';

export const summary = 'List objects in the repository';
export const flags = defineFlags({});

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const what = ctx.args[0];
  const map = { keys: 'keys', snapshots: 'snapshots', index: 'index', packs: 'data', locks: 'locks' } as const;
  const { repo } = await openRepository(ctx, { silent: true });
  // Like restic, listing locks takes none (it would list itself).
  await withLock(
    ctx,
    repo,
    false,
    async () => {
      if (what === 'blobs') {
        await repo.loadIndex({ signal: ctx.signal });
        for (const b of repo.index.entries()) ctx.out.stdout(`${b.type} ${b.id}\n`);
        return;
      }
      const type = map[what as keyof typeof map];
      if (!type) throw new CairnError('USAGE', 'type must be one of (blobs|packs|index|snapshots|keys|locks)');
      for (const id of await repo.listIDs(type, ctx.signal)) ctx.out.stdout(id + '\n');
    },
    true,
    what === 'locks',
  );
  return 0;
}
