import { CairnError } from '../../core/errors';
import { GoTime } from '../../core/data/go-time';
import { goQuote } from '../../core/data/go-quote';
import { Repository } from '../../core/repository/repository';
import { dryRunBackend } from '../../core/backend/dry-run';
import { rewriteSnapshots } from '../../core/rewrite';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { excludeMatcher } from '../exclude-flags';
import { EXCLUDE_FLAGS } from '../pattern-options';
import { cliPrinter } from '../printer';
import { SNAPSHOT_FILTER_FLAGS, selectReadable } from '../snapshot-filter';

export const summary = 'Rewrite snapshots to exclude unwanted files';

export const flags = defineFlags({
  forget: { type: 'bool', help: 'remove original snapshots after creating new ones' },
  'dry-run': { type: 'bool', short: 'n', help: 'do not do anything, just print what would be done' },
  'new-host': { type: 'string', help: 'replace hostname' },
  'new-time': { type: 'string', help: 'replace time of the backup ("2006-01-02 15:04:05", local time)' },
  'snapshot-summary': { type: 'bool', short: 's', help: 'create snapshot summary record if it does not exist' },
  ...SNAPSHOT_FILTER_FLAGS,
  ...EXCLUDE_FLAGS,
});

/** restic's global.TimeFormat in local time. */
export function parseLocalTime(s: string): GoTime {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s);
  const d = m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
  if (!d || Number.isNaN(d.getTime())) throw new CairnError('USAGE', `error in time option: cannot parse ${JSON.stringify(s)} as "2006-01-02 15:04:05"`);
  return GoTime.fromMillis(d.getTime(), -d.getTimezoneOffset());
}

/** With --dry-run the repository is opened on a backend that writes nothing (and no lock is taken). */
export function dryRunRepository(repo: Repository): Repository {
  const r = new Repository(dryRunBackend(repo.backend), repo.key, repo.keyID, repo.config);
  r.compression = repo.compression;
  r.packSize = repo.packSize;
  return r;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const f = ctx.flags;
  const exclude = excludeMatcher(ctx);
  const newHost = f['new-host'] || undefined;
  const newTime = f['new-time'] ? parseLocalTime(f['new-time']) : undefined;
  const snapshotSummary = f['snapshot-summary'] === true;
  if (!exclude && !newHost && !newTime && !snapshotSummary) throw new CairnError('USAGE', 'Nothing to do: no excludes provided and no new metadata provided');
  const dryRun = f['dry-run'] === true;
  const forget = f.forget === true;
  const pr = cliPrinter(ctx);
  const changed = await withRepository(
    ctx,
    forget ? 'exclusive' : 'append',
    async (opened) => {
      const repo = dryRun ? dryRunRepository(opened.repo) : opened.repo;
      const entries = await selectReadable(ctx, repo, ctx.args);
      return rewriteSnapshots(repo, entries, {
        exclude,
        snapshotSummary,
        newHost,
        newTime,
        dryRun,
        forget,
        signal: ctx.signal,
        printer: pr,
        onExcluded: ctx.globals.verbose ? (p) => pr.v(`excluding ${goQuote(p)}`) : undefined,
      });
    },
    { noLock: dryRun, announce: forget },
  );
  pr.p('');
  pr.p(changedLine(changed, dryRun));
  return 0;
}

export function changedLine(n: number, dryRun: boolean): string {
  if (n === 0) return dryRun ? 'no snapshots would be modified' : 'no snapshots were modified';
  return dryRun ? `would modify ${n} snapshots` : `modified ${n} snapshots`;
}
