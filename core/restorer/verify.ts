// restic's `restore --verify` (Restorer.VerifyFiles): after the restore, every file whose
// content it wrote is read back from the target and each blob's bytes hashed against the
// blob's ID, so what reached the disk is checked, not what was handed to it.

import { CairnError, throwIfAborted } from '../errors';
import type { Repository } from '../repository/repository';
import { mapLimit } from '../concurrency/concurrency';
import { verifyWritten } from './overwrite';
import type { PlannedFile } from './restore-plan';
import type { RestoreReport } from './report';
import type { RestoreTarget } from './target';

/** Files read back at once (restic nVerifyWorkers). */
const VERIFY_WORKERS = 8;

/** Verifies `files` (the failed ones aside); each mismatch is an error naming its file. Returns how many are right. */
export async function verifyFiles(repo: Repository, target: RestoreTarget, files: PlannedFile[], report: RestoreReport, signal?: AbortSignal): Promise<number> {
  if (!target.stat || !target.openRead) throw new CairnError('USAGE', 'this restore target cannot read back what it wrote');
  let good = 0;
  await mapLimit(
    files.filter((f) => !f.failed),
    VERIFY_WORKERS,
    async (f) => {
      throwIfAborted(signal);
      let why: string | undefined;
      try {
        why = await verifyWritten(repo, target, f.path, f.node);
      } catch (e) {
        if (e instanceof CairnError && e.code === 'ABORTED') throw e;
        report.fail(f.path, e);
        return;
      }
      if (why) report.fail(f.path, new CairnError('HASH_MISMATCH', why, { detail: { path: '/' + f.path.join('/') } }));
      else good++;
    },
  );
  return good;
}
