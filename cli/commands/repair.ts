import fs from 'node:fs';
import path from 'node:path';
import { CairnError, serializeError } from '../../core/errors';
import { isID, type ID } from '../../core/id';
import { repairIndex, repairPacks, repairSnapshots } from '../../core/repair';
import { selectSnapshots } from '../../core/repository/select-snapshots';
import type { Repository } from '../../core/repository/repository';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { cliPrinter } from '../printer';
import { SNAPSHOT_FILTER_FLAGS, snapshotFilter } from '../snapshot-filter';
import { changedLine, dryRunRepository } from './rewrite';

export const summary = 'Repair the repository (index, packs, snapshots)';

export const flags = defineFlags({
  'read-all-packs': { type: 'bool', help: 'index: read all pack files to generate new index from scratch' },
  forget: { type: 'bool', help: 'snapshots: remove original snapshots after creating new ones' },
  'dry-run': { type: 'bool', short: 'n', help: 'snapshots: do not do anything, just print what would be done' },
  ...SNAPSHOT_FILTER_FLAGS,
});

/** The subcommands each flag applies to. */
const ONLY: readonly [keyof typeof flags, readonly string[]][] = [
  ['read-all-packs', ['index']],
  ['forget', ['snapshots']],
  ['dry-run', ['snapshots']],
  ['host', ['snapshots']],
  ['tag', ['snapshots']],
  ['path', ['snapshots']],
];

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const [sub, ...args] = ctx.args;
  if (sub !== 'index' && sub !== 'snapshots' && sub !== 'packs') throw new CairnError('USAGE', 'repair: use one of index, snapshots, packs');
  for (const [flag, subs] of ONLY) {
    if (ctx.flags[flag] !== undefined && !subs.includes(sub)) throw new CairnError('USAGE', `unknown flag: --${flag} (for repair ${sub})`);
  }
  if (sub === 'index') {
    if (args.length) throw new CairnError('USAGE', 'repair index takes no arguments');
    return runIndex(ctx);
  }
  return sub === 'packs' ? runPacks(ctx, args) : runSnapshots(ctx, args);
}

/** `repair index`. */
export async function runIndex(ctx: Context<typeof flags>): Promise<number> {
  const pr = cliPrinter(ctx);
  await withRepository(ctx, 'exclusive', ({ repo }) =>
    repairIndex(repo, { readAllPacks: ctx.flags['read-all-packs'] === true, signal: ctx.signal, printer: pr }),
  );
  pr.p('done');
  return 0;
}

async function runPacks(ctx: Context<typeof flags>, args: string[]): Promise<number> {
  const ids = new Set<ID>();
  for (const a of args) {
    if (!isID(a)) throw new CairnError('USAGE', `invalid ID ${JSON.stringify(a)}: pack IDs must be the full 64 hex digits`);
    ids.add(a);
  }
  if (ids.size === 0) throw new CairnError('USAGE', 'no ids specified');
  const pr = cliPrinter(ctx);
  await withRepository(
    ctx,
    'exclusive',
    async ({ repo }) => {
      pr.p('saving backup copies of pack files to current folder');
      for (const id of ids) await backupCopy(ctx, repo, id);
      await repairPacks(repo, ids, { signal: ctx.signal, printer: pr });
    },
    { loadIndex: true },
  );
  pr.e('\nUse `restic repair snapshots --forget` to remove the corrupted data blobs from all snapshots');
  return 0;
}

/** restic keeps each damaged pack as ./pack-<ID> before removing it; one that cannot be read at all is just removed. */
async function backupCopy(ctx: Context<typeof flags>, repo: Repository, id: ID): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = await repo.backend.load({ type: 'data', name: id }, { signal: ctx.signal });
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    ctx.out.stderr(`will remove packfile ${id} due to failed download: ${serializeError(e).message}\n`);
    return;
  }
  const file = path.resolve(`pack-${id}`);
  try {
    fs.writeFileSync(file, bytes, { flag: 'wx' });
  } catch (e) {
    throw new CairnError('BACKEND_IO', `cannot keep a copy of pack ${id.slice(0, 8)} as ${file}: ${(e as Error).message}`, { cause: e });
  }
}

async function runSnapshots(ctx: Context<typeof flags>, args: string[]): Promise<number> {
  const dryRun = ctx.flags['dry-run'] === true;
  const forget = ctx.flags.forget === true;
  const pr = cliPrinter(ctx);
  const changed = await withRepository(
    ctx,
    'exclusive',
    async (opened) => {
      const repo = dryRun ? dryRunRepository(opened.repo) : opened.repo;
      const sel = await selectSnapshots(repo, args, snapshotFilter(ctx), ctx.signal);
      let removed = 0;
      for (const bad of sel.unreadable) {
        // restic handleUnreadableSnapshotFile: only removed when named and --forget is given.
        if (!forget || !args.some((a) => bad.id.startsWith(a))) {
          throw new CairnError(
            'BAD_SNAPSHOT',
            `snapshot file ${bad.id} is unreadable, use \`restic repair snapshots --forget ${bad.id}\` to remove it. Original error: ${serializeError(bad.error).message}`,
          );
        }
        if (dryRun) pr.p(`would remove unreadable snapshot ${bad.id}`);
        else {
          await repo.backend.remove({ type: 'snapshots', name: bad.id }, { signal: ctx.signal });
          pr.p(`removed unreadable snapshot ${bad.id}`);
        }
        removed++;
      }
      return removed + (await repairSnapshots(repo, sel.entries, { dryRun, forget, signal: ctx.signal, printer: pr }));
    },
    { noLock: dryRun },
  );
  pr.p('');
  pr.p(changedLine(changed, dryRun));
  return 0;
}
