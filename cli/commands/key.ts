import fs from 'node:fs';
import { CairnError } from '../../core/errors';
import { addKey, readKeyInfo } from '../../core/repository/keyfile';
import type { FlagSpecs } from '../args';
import { newKeyParams, openRepository, withLock, type Context } from '../context';
import { askPassword, localOwner } from '../global';
import { table } from '../output';
import { GoTime } from '../../core/data/go-time';

export const summary = 'Manage keys (passwords)';
export const flags: FlagSpecs = {
  'new-password-file': { type: 'string', help: 'file from which to read the new password' },
  user: { type: 'string', help: 'the username for new key' },
  host: { type: 'string', help: 'the hostname for new key' },
};

async function newPassword(ctx: Context): Promise<string> {
  const file = ctx.p.flags['new-password-file'] as string | undefined;
  let pw: string;
  if (file) pw = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  else {
    pw = await askPassword('enter new password: ');
    if (process.stdin.isTTY && (await askPassword('enter password again: ')) !== pw) throw new CairnError('USAGE', 'passwords do not match');
  }
  if (pw === '') throw new CairnError('NO_PASSWORD', 'an empty password is not allowed');
  return pw;
}

export async function run(ctx: Context): Promise<number> {
  const [sub, arg] = ctx.p.args;
  const owner = localOwner();
  const who = {
    username: (ctx.p.flags.user as string | undefined) ?? owner.username,
    hostname: (ctx.p.flags.host as string | undefined) ?? owner.hostname,
    created: GoTime.fromDate(new Date()).format(),
  };
  switch (sub) {
    case 'list': {
      const { repo } = await openRepository(ctx);
      const infos = await withLock(ctx, repo, false, async () => Promise.all((await repo.listIDs('keys')).map((id) => readKeyInfo(repo.backend, id))), true);
      infos.sort((a, b) => a.created.localeCompare(b.created));
      if (ctx.g.json) {
        ctx.out.stdout(
          JSON.stringify(
            infos.map((k) => ({
              current: k.id === repo.keyID,
              id: k.id,
              userName: k.username,
              hostName: k.hostname,
              created: k.created.slice(0, 19).replace('T', ' '),
            })),
          ) + '\n',
        );
      } else {
        const rows = infos.map((k) => [(k.id === repo.keyID ? '*' : ' ') + k.id.slice(0, 8), k.username, k.hostname, k.created.slice(0, 19).replace('T', ' ')]);
        ctx.out.stdout(table([' ID', 'User', 'Host', 'Created'], rows));
      }
      return 0;
    }
    case 'add': {
      const { repo } = await openRepository(ctx);
      const pw = await newPassword(ctx);
      const kdf = await newKeyParams(ctx);
      const id = await withLock(ctx, repo, false, () => addKey(repo.backend, repo.key, pw, who, kdf));
      if (!ctx.g.quiet) ctx.out.stdout(`saved new key as <Key of ${who.username}@${who.hostname}, created on ${who.created}>\n`);
      void id;
      return 0;
    }
    case 'passwd': {
      const { repo } = await openRepository(ctx);
      const pw = await newPassword(ctx);
      await withLock(ctx, repo, true, async () => {
        await addKey(repo.backend, repo.key, pw, who, await newKeyParams(ctx));
        await repo.backend.remove({ type: 'keys', name: repo.keyID });
      });
      if (!ctx.g.quiet) ctx.out.stdout('saved new key\n');
      return 0;
    }
    case 'remove': {
      if (!arg) throw new CairnError('USAGE', 'key remove needs the ID of the key to remove');
      const { repo } = await openRepository(ctx);
      await withLock(ctx, repo, true, async () => {
        const ids = (await repo.listIDs('keys')).filter((id) => id.startsWith(arg));
        if (ids.length !== 1) throw new CairnError(ids.length ? 'AMBIGUOUS_ID' : 'NOT_FOUND', `no unique key matching ${arg}`);
        if (ids[0] === repo.keyID) throw new CairnError('USAGE', 'refusing to remove key currently used to access repository');
        await repo.backend.remove({ type: 'keys', name: ids[0]! });
      });
      if (!ctx.g.quiet) ctx.out.stdout(`removed key ${arg}\n`);
      return 0;
    }
    default:
      throw new CairnError('USAGE', 'key: use one of list, add, passwd, remove');
  }
}
