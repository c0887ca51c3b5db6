// `forget --prune`: the prune run that follows a forget which removed snapshots, with
// restic's prune flags as forget accepts them (cmd_prune.go AddLimitedFlags).
//
// STUB — to be wired to the real prune (branch `prune`: core/prune/, cli/commands/prune.ts)
// when merging. The wiring should:
//  - validate these flags as restic's verifyPruneOptions does, before the repository is
//    opened (restic refuses a bad --max-unused even without --prune);
//  - run prune on the same repository under forget's exclusive lock (runPruneWithRepo);
//  - also serve `forget --prune --dry-run`, which restic answers with "N snapshots would be
//    removed, running prune dry run" and prune's dry-run report (forget skips the call today).

import { CairnError } from '../../core/errors';
import type { Repository } from '../../core/repository/repository';
import type { FlagSpecs } from '../args';
import type { Context } from '../context';

/** The prune flags exactly as given (restic's defaults filled in), not validated yet. */
export interface ForgetPruneOptions {
  maxUnused: string;
  maxRepackSize?: string;
  repackCacheableOnly: boolean;
  repackSmall: boolean;
  repackUncompressed: boolean;
  repackSmallerThan?: string;
}

export const PRUNE_FLAGS: FlagSpecs = {
  'max-unused': { type: 'string', help: "tolerate given limit of unused data (bytes with k/K, m/M, g/G, t/T, a value in % or 'unlimited'; default 5%)" },
  'max-repack-size': { type: 'string', help: 'stop after repacking this much data in total (suffixes k/K, m/M, g/G, t/T)' },
  'repack-cacheable-only': { type: 'bool', help: 'only repack packs which are cacheable' },
  'repack-small': { type: 'bool', help: 'repack pack files below 80% of target pack size' },
  'repack-uncompressed': { type: 'bool', help: 'repack all uncompressed data' },
  'repack-smaller-than': { type: 'string', help: 'pack below-limit packfiles (suffixes k/K, m/M)' },
};

export function pruneOptionsFrom(flags: Context['p']['flags']): ForgetPruneOptions {
  return {
    maxUnused: (flags['max-unused'] as string | undefined) ?? '5%',
    maxRepackSize: flags['max-repack-size'] as string | undefined,
    repackCacheableOnly: flags['repack-cacheable-only'] === true,
    repackSmall: flags['repack-small'] === true,
    repackUncompressed: flags['repack-uncompressed'] === true,
    repackSmallerThan: flags['repack-smaller-than'] as string | undefined,
  };
}

/** STUB: runs prune after forget removed snapshots. Always refuses until prune is merged. */
export async function runPruneAfterForget(_ctx: Context, _repo: Repository, _options: ForgetPruneOptions): Promise<number> {
  throw new CairnError('USAGE', 'forget --prune: prune is not available yet');
}
