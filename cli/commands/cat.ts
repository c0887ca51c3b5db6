import { CairnError } from '../../core/errors';
import type { FileType } from '../../core/backend/backend';
import { encodeConfig } from '../../core/repository/config';
import { parseKeyFile } from '../../core/repository/keyfile';
import { findSnapshot } from '../../core/repository/snapshots';
import type { Repository } from '../../core/repository/repository';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { snapshotJSON } from '../snapshot-json';

export const summary = 'Print internal objects to stdout';
export const flags = defineFlags({});

const indent = (o: unknown) => JSON.stringify(o, null, 2) + '\n';

async function resolve(repo: Repository, type: Exclude<FileType, 'config'>, prefix: string | undefined): Promise<string> {
  if (!prefix) throw new CairnError('USAGE', 'ID not specified');
  const ids = (await repo.listIDs(type)).filter((id) => id.startsWith(prefix));
  if (ids.length === 0) throw new CairnError('NOT_FOUND', `no ${type} file with ID ${prefix} found`);
  if (ids.length > 1) throw new CairnError('AMBIGUOUS_ID', `ID ${prefix} is ambiguous (${ids.length} ${type} files)`);
  return ids[0]!;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const [what, id] = ctx.args;
  const types = ['config', 'index', 'snapshot', 'key', 'masterkey', 'lock', 'pack', 'blob'];
  if (!what || !types.includes(what)) throw new CairnError('USAGE', `type must be one of (${types.join('|')})`);
  const w = (s: string | Uint8Array) => {
    if (typeof s === 'string') return ctx.out.stdout(s);
    ctx.out.flush?.();
    process.stdout.write(s);
  };
  await withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      switch (what) {
        case 'config':
          w(indent(JSON.parse(encodeConfig(repo.config))));
          break;
        case 'masterkey':
          w(indent(repo.key.toJSON()));
          break;
        case 'index':
          // restic prints the stored JSON and a newline after it (fmt.Println).
          w(new TextDecoder().decode(await repo.loadUnpacked('index', await resolve(repo, 'index', id))) + '\n');
          break;
        case 'lock':
          w(indent(await repo.loadJSON('locks', await resolve(repo, 'locks', id))));
          break;
        case 'snapshot': {
          if (!id) throw new CairnError('USAGE', 'ID not specified');
          const e = await findSnapshot(repo, id);
          const { id: _id, short_id: _s, ...stored } = snapshotJSON(e.id, e.snapshot);
          w(indent(stored));
          break;
        }
        case 'key': {
          const kid = await resolve(repo, 'keys', id);
          w(indent(parseKeyFile(await repo.backend.load({ type: 'keys', name: kid }), kid)));
          break;
        }
        case 'pack':
          w(await repo.backend.load({ type: 'data', name: await resolve(repo, 'data', id) }));
          break;
        case 'blob': {
          if (!id || !/^[0-9a-f]{64}$/.test(id)) throw new CairnError('USAGE', 'blob ID must be the full 64-character ID');
          await repo.loadIndex({ signal: ctx.signal });
          for (const type of ['tree', 'data'] as const) {
            if (repo.index.has(type, id)) {
              w(await repo.loadBlob(type, id, ctx.signal));
              return;
            }
          }
          throw new CairnError('BLOB_NOT_FOUND', `blob ${id} not found`);
        }
      }
    },
    { silent: true },
  );
  return 0;
}
