import { removeLocks } from '../../core/repository/lock';
import { defineFlags } from '../args';
import { isAlive, openRepository, type Context } from '../context';
import { localOwner } from '../global';

export const summary = 'Remove locks other processes created';
export const flags = defineFlags({
  'remove-all': { type: 'bool', help: 'remove all locks, even non-stale ones' },
});

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const { repo } = await openRepository(ctx);
  const owner = localOwner();
  const removed = await removeLocks(repo, { hostname: owner.hostname, processAlive: isAlive }, { all: ctx.flags['remove-all'] === true });
  if (!ctx.globals.quiet) ctx.out.stdout(`successfully removed ${removed.length} locks\n`);
  return 0;
}
