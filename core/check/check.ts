import { serializeError, type ErrorCode } from '../errors';
import type { ID } from '../id';
import { decodeIndex } from '../index/index-file';
import type { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { expectedPackSize } from '../pack/reader';
import type { PackedBlob } from '../pack/header';
import { loadTree } from '../walker';
import type { PackDecoder } from '../restorer/restorer';
import { readPacks, type ProblemSink } from './read-packs';
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
  for (const id of await repo.listIDs('index', signal)) {
    try {
      for (const p of decodeIndex(await repo.loadJSON('index', id, signal), id)) {
        if (!indexed.has(p.id)) {
          indexed.set(p.id, p.blobs);
          repo.index.addPack(p.id, p.blobs);
        }
      }
    } catch (e) {
      const s = serializeError(e);
      problem({ kind: 'index', code: s.code, message: `error loading index ${id.slice(0, 8)}: ${s.message}` });
    }
  }

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
  const seenTrees = new Set<ID>();
  const checkTree = async (id: ID, where: string): Promise<void> => {
    if (seenTrees.has(id)) return;
    seenTrees.add(id);
    let tree;
    try {
      tree = await loadTree(repo, id, signal);
    } catch (e) {
      const s = serializeError(e);
      problem({ kind: 'tree', code: s.code, blob: id, message: `tree ${id.slice(0, 8)} (${where}): ${s.message}` });
      return;
    }
    for (const node of tree.nodes) {
      const at = `${where}/${node.name}`;
      // As restic's checker: the one name check it makes (restore refuses more, node-name.ts).
      if (node.name === '') problem({ kind: 'tree', code: 'INVALID_NAME', blob: id, message: `tree ${id.slice(0, 8)}: node with empty name` });
      if (node.type === 'file') {
        if (!node.content)
          problem({ kind: 'tree', code: 'BAD_TREE', blob: id, message: `tree ${id.slice(0, 8)}: file ${JSON.stringify(node.name)} has nil blob list` });
        for (const b of node.content ?? []) {
          if (!repo.index.has('data', b))
            problem({
              kind: 'blob',
              code: 'BLOB_NOT_FOUND',
              blob: b,
              message: `tree ${id.slice(0, 8)}: file ${JSON.stringify(at)} blob ${b.slice(0, 8)} not found in index`,
            });
        }
      } else if (node.type === 'dir') {
        if (!node.subtree)
          problem({ kind: 'tree', code: 'BAD_TREE', blob: id, message: `tree ${id.slice(0, 8)}: dir ${JSON.stringify(node.name)} subtree id is null` });
        else await checkTree(node.subtree, at);
      }
    }
  };
  for (const { id, snapshot } of snapshots) {
    if (!repo.index.has('tree', snapshot.tree)) {
      problem({
        kind: 'snapshot',
        code: 'BLOB_NOT_FOUND',
        blob: snapshot.tree,
        message: `snapshot ${id.slice(0, 8)}: tree ${snapshot.tree.slice(0, 8)} not found in index`,
      });
      continue;
    }
    await checkTree(snapshot.tree, '');
  }

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
