import { check } from '../../core/check';
import type { FlagSpecs } from '../args';
import { openRepository, withLock, type Context } from '../context';

export const summary = 'Check the repository for errors';
export const flags: FlagSpecs = {
  'read-data': { type: 'bool', help: 'read all data blobs' },
  'check-unused': { type: 'bool', help: 'accepted for restic compatibility' },
  'with-cache': { type: 'bool', help: 'accepted for restic compatibility' },
};

export async function run(ctx: Context): Promise<number> {
  const { repo } = await openRepository(ctx);
  const say = (s: string) => !ctx.g.json && !ctx.g.quiet && ctx.out.stdout(s + '\n');
  say('create exclusive lock for repository');
  const result = await withLock(ctx, repo, true, () => check(repo, { readData: ctx.p.flags['read-data'] === true, signal: ctx.signal, onMessage: say }));
  const errors = result.problems.filter((p) => !p.hint);
  const hints = result.problems.filter((p) => p.hint);
  ctx.log?.summary({ num_errors: errors.length });
  for (const e of errors) ctx.log?.error(e.message);
  if (ctx.g.json) {
    ctx.out.stdout(JSON.stringify({ message_type: 'summary', num_errors: errors.length, problems: result.problems }) + '\n');
  } else {
    for (const h of hints) ctx.out.stdout(`  ${h.message}\n`);
    if (hints.length)
      ctx.out.stdout(
        `${hints.length} additional files were found in the repo, which likely contain duplicate data.\nThis is non-critical, you can run \`restic prune\` to correct this.\n`,
      );
    for (const e of errors) ctx.out.stderr(`error: ${e.message}\n`);
  }
  if (errors.length) {
    ctx.out.stderr('Fatal: repository contains errors\n');
    return 1;
  }
  say('no errors were found');
  return 0;
}
