// The second repository of `copy` (restic internal/global/secondary_repo.go): --from-repo /
// --from-repository-file, --from-password-file / --from-password-command, --from-key-hint,
// each defaulting to its RESTIC_FROM_* variable, and RESTIC_FROM_PASSWORD; resolved with the
// same rules as the main repository's (global.ts).

import fs from 'node:fs';
import { CairnError } from '../core/errors';
import { Repository } from '../core/repository/repository';
import { defineFlags } from './args';
import type { Context } from './context';
import { goTrimSpace, readPassword } from './global';
import { openBackend, parseLocation, type BackendSpec } from './location';

export const FROM_REPO_FLAGS = defineFlags({
  'from-repo': { type: 'string', help: 'source repository to copy snapshots from (default: $RESTIC_FROM_REPOSITORY)' },
  'from-repository-file': { type: 'string', help: 'file from which to read the source repository location (default: $RESTIC_FROM_REPOSITORY_FILE)' },
  'from-password-file': { type: 'string', help: 'file to read the source repository password from (default: $RESTIC_FROM_PASSWORD_FILE)' },
  'from-password-command': { type: 'string', help: 'shell command to obtain the source repository password from (default: $RESTIC_FROM_PASSWORD_COMMAND)' },
  'from-key-hint': { type: 'string', help: 'key ID of key to try decrypting the source repository first (default: $RESTIC_FROM_KEY_HINT)' },
});

export interface SecondaryOptions {
  location: string;
  keyHint?: string;
  password: string;
}

/** Resolves the source repository's location and password (asked for before anything is opened, as restic). */
export async function secondaryOptions(ctx: Context<typeof FROM_REPO_FLAGS>): Promise<SecondaryOptions> {
  const f = ctx.flags;
  const env = ctx.globals.env;
  const repo = f['from-repo'] ?? env.RESTIC_FROM_REPOSITORY ?? '';
  const repoFile = f['from-repository-file'] ?? env.RESTIC_FROM_REPOSITORY_FILE ?? '';
  if (!repo && !repoFile) throw new CairnError('USAGE', 'Please specify a source repository location (--from-repo or --from-repository-file)');
  if (repo && repoFile) throw new CairnError('USAGE', 'Options --from-repo and --from-repository-file are mutually exclusive, please specify only one');
  let location = repo;
  if (repoFile) {
    try {
      location = goTrimSpace(fs.readFileSync(repoFile, 'utf8'));
    } catch (e) {
      throw new CairnError('USAGE', `cannot read repository file ${repoFile}: ${(e as Error).message}`, { cause: e });
    }
  }
  const password = await readPassword(
    {
      ...ctx.globals,
      passwordFlags: { file: f['from-password-file'], command: f['from-password-command'] },
      env: {
        RESTIC_PASSWORD_FILE: env.RESTIC_FROM_PASSWORD_FILE,
        RESTIC_PASSWORD_COMMAND: env.RESTIC_FROM_PASSWORD_COMMAND,
        RESTIC_PASSWORD: env.RESTIC_FROM_PASSWORD,
      },
    },
    'enter password for source repository: ',
  );
  return { location, password, keyHint: f['from-key-hint'] ?? env.RESTIC_FROM_KEY_HINT };
}

export async function openSecondary(ctx: Context, o: SecondaryOptions): Promise<{ repo: Repository; spec: BackendSpec }> {
  const spec = parseLocation(o.location, ctx.globals.env);
  const repo = await Repository.open(await openBackend(spec), o.password, { keyHint: o.keyHint, signal: ctx.signal });
  if (!ctx.globals.quiet && !ctx.globals.json) {
    ctx.out.stdout(`repository ${repo.config.id.slice(0, 8)} opened (repository version ${repo.version}) successfully, password is correct\n`);
  }
  return { repo, spec };
}
