import { serializeError, type ErrorCode } from '../errors';
import type { ID } from '../id';
import { decodeIndex } from '../index/index-file';
import type { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { expectedPackSize } from '../pack/reader';
import type { PackedBlob } from '../pack/header';
import type { PackDecoder } from '../restorer/restorer';
import { readPacks, type ProblemSink } from './read-packs';
import { checkTrees } from './structure';
import { mapLimit } from '../concurrency/concurrency';
import { selectSubset, type Subset } from './subset';

export interface CheckProblem {
  /** Stable kind for tests and tools. */
  kind: 'index' | 'pack-missing' | 'pack-size' | 'pack-unreferenced' | 'pack-hash' | 'pack-header' | 'blob' | 'snapshot' | 'tree';
  code: ErrorCode;
  message: string;
  pack?: ID;
  blob?: ID;
  /** Non-fatal findings (restic prints them as hints): unreferenced packs. */
  hint?: boolean;
}

export interface CheckOptions {
  readData?: boolean;
  /** Read only these packs' data (restic --read-data-subset); see subset.ts. */
  readDataSubset?: Subset;
  /** For the random subsets (x%, size); Math.random by default. */
  random?: () => number;
  /** Verifies blobs on other threads while packs are read (see read-packs.ts). */
  decodePack?: PackDecoder;
  /** Packs read at once. */
  readConcurrency?: number;
  signal?: AbortSignal;
  onMessage?: (line: string) => void;
  onProgress?: (done: number, total: number, what: string) => void;
}

export interface CheckResult {
  problems: CheckProblem[];
  /** True when nothing fatal was found (hints allowed). */
  ok: boolean;
  snapshots: number;
  packs: number;
}

export async function check(repo: Repository, opts: CheckOptions = {}): Promise<CheckResult> {
  const { signal } = opts;
  const problems: CheckProblem[] = [];
  const say = (s: string) => opts.onMessage?.(s);
  const problem = (p: Omit<CheckProblem, 'code'> & { code?: ErrorCode }) => problems.push({ code: 'INTERNAL', ...p } as CheckProblem);

  say('load indexes');
  const indexed = new Map<ID, PackedBlob[]>();
  await mapLimit(await repo.listIDs('index', signal), 8, async (id) => {
    try {
      for (const p of decodeIndex(await repo.loadJSON('index', id, signal), id)) {
        if (!indexed.has(p.id)) {
          indexed.set(p.id, p.blobs);
          repo.index.addPack(p.id, p.blobs);
        }
      }
    } catch (e) {
      const s = serializeError(e);
      if (s.code === 'ABORTED') throw e;
      problem({ kind: 'index', code: s.code, message: `error loading index ${id.slice(0, 8)}: ${s.message}` });
    }
  });

  say('check all packs');
  const stored = new Map<ID, number>();
  for await (const fi of repo.backend.list('data', { signal })) stored.set(fi.name, fi.size);
  for (const [pack, blobs] of indexed) {
    const size = stored.get(pack);
    if (size === undefined) problem({ kind: 'pack-missing', code: 'NOT_FOUND', pack, message: `pack ${pack}: does not exist` });
    else if (size !== expectedPackSize(blobs)) {
      problem({ kind: 'pack-size', code: 'BAD_PACK', pack, message: `pack ${pack}: unexpected file size: got ${size}, expected ${expectedPackSize(blobs)}` });
    }
  }
  for (const pack of stored.keys()) {
    if (!indexed.has(pack)) problem({ kind: 'pack-unreferenced', code: 'BAD_PACK', pack, hint: true, message: `pack ${pack} not referenced in any index` });
  }

  say('check snapshots, trees and blobs');
  const snapshots = await listSnapshots(repo, {
    signal,
    onError: (id, e) => problem({ kind: 'snapshot', code: serializeError(e).code, message: `snapshot ${id.slice(0, 8)}: ${serializeError(e).message}` }),
  });
  const roots: ID[] = [];
  for (const { id, snapshot } of snapshots) {
    if (repo.index.has('tree', snapshot.tree)) roots.push(snapshot.tree);
    else
      problem({
        kind: 'snapshot',
        code: 'BLOB_NOT_FOUND',
        blob: snapshot.tree,
        message: `snapshot ${id.slice(0, 8)}: tree ${snapshot.tree.slice(0, 8)} not found in index`,
      });
  }
  await checkTrees(repo, roots, problem, signal);

  if (opts.readData || opts.readDataSubset) await readData(repo, indexed, stored, opts, problem);
  return { problems, ok: !problems.some((p) => !p.hint), snapshots: snapshots.length, packs: stored.size };
}

/** The packs to read (all indexed and stored ones, or the chosen subset), then read them. */
async function readData(repo: Repository, indexed: Map<ID, PackedBlob[]>, stored: Map<ID, number>, opts: CheckOptions, problem: ProblemSink): Promise<void> {
  let packs: ID[];
  if (opts.readDataSubset) {
    const sizes = new Map([...indexed].map(([id, blobs]) => [id, expectedPackSize(blobs)]));
    const choice = selectSubset(sizes, opts.readDataSubset, opts.random);
    opts.onMessage?.(choice.message);
    packs = choice.packs;
  } else {
    opts.onMessage?.('read all data');
    packs = [...indexed.keys()];
  }
  const list = packs.filter((p) => stored.has(p)).map((id) => ({ id, size: stored.get(id)!, blobs: indexed.get(id)! }));
  await readPacks(repo, list, problem, { signal: opts.signal, decodePack: opts.decodePack, concurrency: opts.readConcurrency, onProgress: opts.onProgress });
}
