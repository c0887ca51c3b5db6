import fs from 'node:fs';
import { CairnError, serializeError } from '../../core/errors';
import { addKey, readKeyInfo, searchKey, type KeyFileInfo } from '../../core/repository/keyfile';
import { openWithMasterKey, parseMasterKey } from '../../core/repository/master-key';
import type { Repository } from '../../core/repository/repository';
import { GoTime } from '../../core/data/go-time';
import { goTimeString } from '../../core/data/snapshot-string';
import type { ID } from '../../core/id';
import { defineFlags } from '../args';
import { newKeyParams, withLock, withRepository, type Context } from '../context';
import { askPassword, goTrimSpace, localOwner } from '../global';
import { openBackend, parseLocation } from '../location';
import { table } from '../output';

export const summary = 'Manage keys (passwords)';

export const flags = defineFlags({
  'new-password-file': { type: 'string', help: 'file from which to read the new password' },
  'new-insecure-no-password': { type: 'bool', help: 'add an empty password for the repository (insecure)' },
  'from-masterkey': {
    type: 'string',
    help: 'add: open the repository with the master key in this file (the output of `cat masterkey`) instead of a password',
  },
  user: { type: 'string', help: 'the username for new key' },
  host: { type: 'string', help: 'the hostname for new key' },
});

/** restic getNewPassword: --new-insecure-no-password, --new-password-file (trimmed), or asked twice. */
async function newPassword(ctx: Context<typeof flags>): Promise<string> {
  const file = ctx.flags['new-password-file'];
  if (ctx.flags['new-insecure-no-password'] === true) {
    if (file) throw new CairnError('USAGE', 'only either --new-password-file or --new-insecure-no-password may be specified');
    return '';
  }
  if (file) {
    let pw: string;
    try {
      pw = goTrimSpace(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new CairnError('NO_PASSWORD', `cannot read password file ${file}: ${(e as Error).message}`, { cause: e });
    }
    if (pw === '')
      throw new CairnError('NO_PASSWORD', 'an empty password is not allowed by default. Pass the flag `--new-insecure-no-password` to disable this check');
    return pw;
  }
  const pw = await askPassword('enter new password: ');
  if (process.stdin.isTTY && (await askPassword('enter password again: ')) !== pw) throw new CairnError('USAGE', 'passwords do not match');
  return pw;
}

interface NewKey {
  id: ID;
  username: string;
  hostname: string;
  created: GoTime;
}

/** Writes a key for the repository's master key and proves it opens (restic switchToNewKeyAndRemoveIfBroken). */
async function writeKey(ctx: Context<typeof flags>, repo: Repository, pw: string): Promise<NewKey> {
  const owner = localOwner();
  const created = GoTime.fromDate(new Date());
  const who = { username: ctx.flags.user || owner.username, hostname: ctx.flags.host || owner.hostname };
  const kdf = await newKeyParams(ctx);
  const id = await addKey(repo.backend, repo.key, pw, { ...who, created: created.format() }, kdf);
  try {
    const found = await searchKey(repo.backend, pw, { keyHint: id, signal: ctx.signal });
    if (found.id !== id) throw new CairnError('INTERNAL', 'another key answered first');
  } catch (e) {
    await repo.backend.remove({ type: 'keys', name: id }).catch(() => {});
    throw new CairnError('INTERNAL', `failed to access repository with new key: ${serializeError(e).message}`, { cause: e });
  }
  return { id, created, ...who };
}

async function list(ctx: Context<typeof flags>): Promise<void> {
  const { repo, infos } = await withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      const out: KeyFileInfo[] = [];
      for (const id of await repo.listIDs('keys', ctx.signal)) {
        try {
          out.push(await readKeyInfo(repo.backend, id));
        } catch (e) {
          ctx.out.stderr(`LoadKey() failed: ${serializeError(e).message}\n`);
        }
      }
      return { repo, infos: out };
    },
    { silent: ctx.globals.json },
  );
  infos.sort((a, b) => localTime(a.created).localeCompare(localTime(b.created)) || (a.id < b.id ? -1 : 1));
  const rows = infos.map((k) => ({ current: k.id === repo.keyID, id: k.id, userName: k.username, hostName: k.hostname, created: localTime(k.created) }));
  if (ctx.globals.json) ctx.out.stdout(JSON.stringify(rows) + '\n');
  else
    ctx.out.stdout(
      table(
        [' ID', 'User', 'Host', 'Created'],
        rows.map((k) => [(k.current ? '*' : ' ') + k.id.slice(0, 8), k.userName, k.hostName, k.created]),
      ),
    );
}

/** A key's creation time as restic's key list shows it: local time, "2006-01-02 15:04:05". */
function localTime(rfc3339: string): string {
  const d = new Date(rfc3339);
  if (Number.isNaN(d.getTime())) return rfc3339.slice(0, 19).replace('T', ' ');
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `key add --from-masterkey FILE`: the repository opened with the master key `cat masterkey` printed. */
async function openWithMasterKeyFile(ctx: Context, file: string): Promise<Repository> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CairnError('USAGE', `cannot read master key file ${file}: ${(e as Error).message}`, { cause: e });
  }
  return openWithMasterKey(await openBackend(parseLocation(ctx.globals.repo, ctx.globals.env)), parseMasterKey(text), ctx.signal);
}

async function add(ctx: Context<typeof flags>): Promise<void> {
  const masterFile = ctx.flags['from-masterkey'];
  const saveNewKey = async (repo: Repository) => writeKey(ctx, repo, await newPassword(ctx));
  let k: NewKey;
  if (masterFile) {
    const repo = await openWithMasterKeyFile(ctx, masterFile);
    k = await withLock(ctx, repo, 'append', () => saveNewKey(repo));
  } else k = await withRepository(ctx, 'append', ({ repo }) => saveNewKey(repo));
  if (!ctx.globals.quiet) ctx.out.stdout(`saved new key with ID ${k.id}\n`);
}

async function passwd(ctx: Context<typeof flags>): Promise<void> {
  const k = await withRepository(ctx, 'exclusive', async ({ repo }) => {
    const k = await writeKey(ctx, repo, await newPassword(ctx));
    await repo.backend.remove({ type: 'keys', name: repo.keyID }, { signal: ctx.signal });
    return k;
  });
  if (!ctx.globals.quiet) ctx.out.stdout(`saved new key as <Key of ${k.username}@${k.hostname}, created on ${goTimeString(k.created)}>\n`);
}

async function remove(ctx: Context<typeof flags>, prefix: string): Promise<void> {
  const id = await withRepository(ctx, 'exclusive', async ({ repo }) => {
    const ids = (await repo.listIDs('keys', ctx.signal)).filter((id) => id.startsWith(prefix));
    if (ids.length === 0) throw new CairnError('NOT_FOUND', `no matching ID found for prefix "${prefix}"`);
    if (ids.length > 1) throw new CairnError('AMBIGUOUS_ID', `multiple IDs with prefix "${prefix}" found`);
    if (ids[0] === repo.keyID) throw new CairnError('USAGE', 'refusing to remove key currently used to access repository');
    await repo.backend.remove({ type: 'keys', name: ids[0]! }, { signal: ctx.signal });
    return ids[0]!;
  });
  if (!ctx.globals.quiet) ctx.out.stdout(`removed key ${id}\n`);
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const [sub, ...args] = ctx.args;
  if (ctx.flags['from-masterkey'] !== undefined && sub !== 'add') throw new CairnError('USAGE', '--from-masterkey only applies to key add');
  const noArgs = () => {
    if (args.length)
      throw new CairnError('USAGE', `the key ${sub} command expects no arguments, only options - please see \`cairn key --help\` for usage and flags`);
  };
  switch (sub) {
    case 'list':
      noArgs();
      await list(ctx);
      return 0;
    case 'add':
      noArgs();
      await add(ctx);
      return 0;
    case 'passwd':
      noArgs();
      await passwd(ctx);
      return 0;
    case 'remove':
      if (args.length !== 1) throw new CairnError('USAGE', 'key remove expects one argument as the key id');
      await remove(ctx, args[0]!);
      return 0;
    default:
      throw new CairnError('USAGE', 'key: use one of list, add, passwd, remove');
  }
}
