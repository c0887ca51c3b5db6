// Carrying out a prune plan (restic PrunePlan.Execute), in an order that leaves a valid
// repository wherever it stops (killed, cancelled, a failed request):
//   1. delete the packs no index lists (nothing refers to them);
//   2. repack: new packs are stored (listed by no index yet: extra packs, harmless);
//   3. store the new index files (blobs then listed twice: old and new packs both exist);
//   4. delete the obsolete index files (only after every new one is stored);
//   5. delete the packs no index lists any more.
// A second prune after any stop finishes the job: unlisted packs are deleted in its step 1,
// and of a blob listed twice it keeps the copy in the packs made only of such copies.

import { CairnError, throwIfAborted } from '../errors';
import type { ID } from '../id';
import { deleteFiles } from './delete';
import { planIndexRewrite, writeIndexFiles } from './index-rewrite';
import type { IndexPack } from '../index/index-file';
import type { PlanState, PrunePlan } from './plan';
import { PruneReporter, type PruneProgressListener } from './progress';
import { repack } from './repack';

export interface ExecuteOptions {
  signal?: AbortSignal;
  onProgress?: PruneProgressListener;
  /** Packs that could not be deleted (prune goes on; the next one deletes them). */
  onWarning?: (message: string) => void;
}

export interface PruneResult {
  packsDeleted: number;
  bytesDeleted: number;
  packsWritten: number;
  bytesWritten: number;
  indexFilesWritten: number;
  indexFilesDeleted: number;
  /** Packs that should have been deleted but are still there. */
  packsNotDeleted: ID[];
}

export async function executePrune(plan: PrunePlan, opts: ExecuteOptions = {}): Promise<PruneResult> {
  const s = plan.state;
  if (s.executed) throw new CairnError('INTERNAL', 'prune: this plan was executed already');
  if (s.repo.index !== s.index || s.index.generation !== s.generation) {
    throw new CairnError('INTERNAL', 'prune: the index changed since the plan was made; plan again');
  }
  s.executed = true;
  const run = new Execution(s, opts);
  try {
    const { decision } = s;
    if (decision.removeFirst.length)
      await run.deletePacks(
        'delete-unreferenced',
        decision.removeFirst.map((p) => p.id),
      );
    throwIfAborted(opts.signal);
    const unindexed = decision.repack.length ? await run.repack() : [];
    if (decision.remove.length + decision.repack.length + decision.ignore.length) await run.rewriteIndex(unindexed);
    const old = [...decision.remove, ...decision.repack].map((n) => s.index.packIDs()[n]!);
    if (old.length) await run.deletePacks('delete-packs', old);
    run.reporter.phase('done');
    return run.result;
  } finally {
    // The index in memory lists deleted packs and not the new ones.
    s.repo.dropIndex();
  }
}

/** The steps of one execution, sharing its progress and result. */
class Execution {
  readonly reporter: PruneReporter;
  readonly result: PruneResult = {
    packsDeleted: 0,
    bytesDeleted: 0,
    packsWritten: 0,
    bytesWritten: 0,
    indexFilesWritten: 0,
    indexFilesDeleted: 0,
    packsNotDeleted: [],
  };
  readonly #s: PlanState;
  readonly #opts: ExecuteOptions;
  readonly #sizes = new Map<ID, number>();

  constructor(s: PlanState, opts: ExecuteOptions) {
    this.#s = s;
    this.#opts = opts;
    this.reporter = new PruneReporter(opts.onProgress);
    const d = s.decision;
    for (const p of d.removeFirst) this.#sizes.set(p.id, p.size);
    for (const n of [...d.remove, ...d.repack]) this.#sizes.set(s.index.packIDs()[n]!, d.storedSizes[n]!);
  }

  /** Deletes packs; one that cannot be deleted is a warning (an extra pack harms nothing). */
  async deletePacks(phase: 'delete-unreferenced' | 'delete-packs', packs: ID[]): Promise<void> {
    const { result, reporter } = this;
    reporter.phase(phase, packs.length);
    const failed = await deleteFiles(this.#s.repo.backend, 'data', packs, {
      signal: this.#opts.signal,
      ignoreErrors: true,
      onDeleted: (id) => {
        result.packsDeleted++;
        result.bytesDeleted += this.#sizes.get(id) ?? 0;
        reporter.update({ done: reporter.state.done + 1, packsDeleted: result.packsDeleted, bytesDeleted: result.bytesDeleted });
      },
      onError: (id, e) => this.#opts.onWarning?.(`unable to remove data/${id} from the repository: ${(e as Error).message}`),
    });
    result.packsNotDeleted.push(...failed);
  }

  /** Copies the blobs to keep into new packs; returns the new packs no index file lists yet. */
  async repack(): Promise<IndexPack[]> {
    const { result, reporter } = this;
    const s = this.#s;
    reporter.phase('repack', s.decision.repack.length);
    const repacked = await repack(s.repo, s.index, s.decision.repack, s.keep!, {
      signal: this.#opts.signal,
      compressData: s.repackUncompressed,
      onPackRead: () => reporter.add('packsRead'),
      onPackRepacked: () => reporter.update({ done: reporter.state.done + 1, packsRepacked: reporter.state.packsRepacked + 1 }),
      onPackWritten: (bytes) => {
        result.packsWritten++;
        result.bytesWritten += bytes;
        reporter.update({ packsWritten: result.packsWritten, bytesWritten: result.bytesWritten });
      },
    });
    result.indexFilesWritten += repacked.indexFiles.length;
    return repacked.unindexed;
  }

  /** New index files without the packs that go (and with `unindexed`), then the obsolete ones deleted. */
  async rewriteIndex(unindexed: IndexPack[]): Promise<void> {
    const { result, reporter } = this;
    const { repo, index, decision } = this.#s;
    const { signal } = this.#opts;
    const excluded = new Uint8Array(index.packCount);
    for (const n of [...decision.remove, ...decision.repack, ...decision.ignore]) excluded[n] = 1;
    const rewrite = planIndexRewrite(repo.indexFiles, excluded);
    reporter.phase('rewrite-index', rewrite.obsolete.length);
    result.indexFilesWritten += (await writeIndexFiles(repo, index, rewrite.packs, unindexed, { signal })).length;
    reporter.phase('delete-index', rewrite.obsolete.length);
    await deleteFiles(repo.backend, 'index', rewrite.obsolete, { signal, onDeleted: () => reporter.update({ done: ++result.indexFilesDeleted }) });
  }
}
