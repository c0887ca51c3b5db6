import { CairnError } from '../../core/errors';
import { Repository } from '../../core/repository/repository';
import { defineFlags } from '../args';
import { backendSpec, newKeyParams, openContextBackend, type Context } from '../context';
import { localOwner, readPassword, askPassword } from '../global';

export const flags = defineFlags({
  'repository-version': { type: 'string', help: 'repository format version to use: 1, 2, latest or stable' },
});

export const summary = 'Initialize a new repository';

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const v = ctx.flags['repository-version'] ?? 'stable';
  const version = v === 'latest' || v === 'stable' ? 2 : Number(v);
  if (version !== 1 && version !== 2) throw new CairnError('USAGE', `unsupported repository version ${v}`);
  const spec = backendSpec(ctx);
  let password = await readPassword(ctx.globals, 'enter password for new repository: ');
  if (process.stdin.isTTY && ctx.globals.env.RESTIC_PASSWORD === undefined && !ctx.globals.passwordFlags.file && !ctx.globals.env.RESTIC_PASSWORD_FILE) {
    if ((await askPassword('enter password again: ')) !== password) throw new CairnError('USAGE', 'passwords do not match');
  }
  if (password === '') throw new CairnError('NO_PASSWORD', 'an empty password is not allowed');
  const backend = await openContextBackend(ctx, spec, { create: true });
  const owner = localOwner();
  const repo = await Repository.init(backend, password, { owner, version, kdf: await newKeyParams(ctx) });
  // eslint-disable-next-line no-useless-assignment -- the password is not kept reachable longer than needed
  password = '';
  if (ctx.globals.json) {
    ctx.out.stdout(JSON.stringify({ message_type: 'initialized', id: repo.config.id, repository: backend.location }) + '\n');
  } else if (!ctx.globals.quiet) {
    ctx.out.stdout(
      `created restic repository ${repo.config.id.slice(0, 10)} at ${ctx.globals.repo}\n\n` +
        'Please note that knowledge of your password is required to access\n' +
        'the repository. Losing your password means that your data is\n' +
        'irrecoverably lost.\n',
    );
  }
  return 0;
}
