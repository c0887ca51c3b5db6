import { CairnError } from '../../core/errors';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';

export const summary = 'List objects in the repository';
export const flags = defineFlags({});

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const what = ctx.args[0];
  const map = { keys: 'keys', snapshots: 'snapshots', index: 'index', packs: 'data', locks: 'locks' } as const;
  // Like restic, listing locks takes none (it would list itself).
  await withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      if (what === 'blobs') {
        await repo.loadIndex({ signal: ctx.signal });
        for (const b of repo.index.entries()) ctx.out.stdout(`${b.type} ${b.id}\n`);
        return;
      }
      const type = map[what as keyof typeof map];
      if (!type) throw new CairnError('USAGE', 'type must be one of (blobs|packs|index|snapshots|keys|locks)');
      for (const id of await repo.listIDs(type, ctx.signal)) ctx.out.stdout(id + '\n');
    },
    { silent: true, noLock: what === 'locks' },
  );
  return 0;
}
