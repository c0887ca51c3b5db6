import { CairnError, serializeError, type ErrorCode } from '../errors';
import { hashID, type ID } from '../id';
import { decodeIndex } from '../index/index-file';
import { decodeBlob } from '../repository/blob-codec';
import type { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { readPackHeader, expectedPackSize } from '../pack/reader';
import type { PackedBlob } from '../pack/header';
import { loadTree } from '../walker';
import { mapLimit } from '../concurrency/concurrency';
import { PACK_BUFFER_SIZE } from '../pack/packer';
import { memoryLoader } from './memory-loader';
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

  if (opts.readData || opts.readDataSubset) await readPacks(repo, indexed, stored, opts, problem);
  return { problems, ok: !problems.some((p) => !p.hint), snapshots: snapshots.length, packs: stored.size };
}

/** restic Checker.ReadPacks: every indexed pack's bytes, header and blobs (or the chosen subset). */
async function readPacks(repo: Repository, indexed: Map<ID, PackedBlob[]>, stored: Map<ID, number>, opts: CheckOptions, problem: ProblemSink): Promise<void> {
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
  packs = packs.filter((p) => stored.has(p));
  let done = 0;
  const buffers: Uint8Array[] = [];
  await mapLimit(packs, 2, async (pack) => {
    await checkPackData(repo, pack, stored.get(pack)!, indexed.get(pack)!, problem, opts.signal, buffers);
    opts.onProgress?.(++done, packs.length, 'packs');
  });
}

type ProblemSink = (p: Omit<CheckProblem, 'code'> & { code?: ErrorCode }) => void;

async function checkPackData(
  repo: Repository,
  pack: ID,
  size: number,
  indexBlobs: PackedBlob[],
  problem: ProblemSink,
  signal?: AbortSignal,
  buffers: Uint8Array[] = [],
): Promise<void> {
  let bytes: Uint8Array;
  // Packs are read into reused buffers and their blobs decrypted in place (fresh pages are
  // what costs most per byte on some VMs); the buffer goes back when this pack is done.
  let into = buffers.pop();
  if (into && into.length < size) into = undefined;
  into ??= new Uint8Array(Math.max(size, PACK_BUFFER_SIZE));
  try {
    bytes = await repo.backend.load({ type: 'data', name: pack }, { signal, into });
  } catch (e) {
    if (e instanceof CairnError && e.code === 'ABORTED') throw e;
    problem({ kind: 'pack-missing', code: serializeError(e).code, pack, message: `pack ${pack}: ${serializeError(e).message}` });
    return;
  }
  const got = await hashID(bytes);
  if (got !== pack)
    problem({ kind: 'pack-hash', code: 'HASH_MISMATCH', pack, message: `pack ${pack}: ID does not match, want ${pack.slice(0, 8)}, got ${got.slice(0, 8)}` });
  let header: PackedBlob[] | undefined;
  try {
    header = await readPackHeader(memoryLoader(bytes), repo.key, pack, size, signal);
  } catch (e) {
    problem({ kind: 'pack-header', code: serializeError(e).code, pack, message: `pack ${pack}: ${serializeError(e).message}` });
  }
  // Check every blob the index lists for this pack (the header may be the corrupt part).
  const listed = header ?? indexBlobs;
  if (header) {
    const key = (b: PackedBlob) => `${b.type}:${b.id}:${b.offset}:${b.length}`;
    const inHeader = new Set(header.map(key));
    for (const b of indexBlobs) {
      if (!inHeader.has(key(b)))
        problem({
          kind: 'pack-header',
          code: 'BAD_PACK',
          pack,
          blob: b.id,
          message: `pack ${pack}: blob ${b.id.slice(0, 8)} listed in index is not in the pack header at offset ${b.offset}`,
        });
    }
  }
  // In place only where no other listed blob shares the bytes (a damaged header might).
  const overlaps = new Set<PackedBlob>();
  const byOffset = [...listed].sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < byOffset.length; i++) {
    const prev = byOffset[i - 1]!,
      cur = byOffset[i]!;
    if (cur.offset < prev.offset + prev.length) {
      overlaps.add(prev);
      overlaps.add(cur);
    }
  }
  for (const b of listed) {
    try {
      if (b.offset + b.length > bytes.length) throw new CairnError('BAD_PACK', 'blob extends past the end of the pack');
      await decodeBlob(repo.key, bytes.subarray(b.offset, b.offset + b.length), { ...b, packID: pack }, !overlaps.has(b));
    } catch (e) {
      problem({
        kind: 'blob',
        code: serializeError(e).code,
        pack,
        blob: b.id,
        message: `pack ${pack}: blob ${b.id} (${b.type}, offset ${b.offset}): ${serializeError(e).message}`,
      });
    }
  }
  if (bytes.buffer === into.buffer && buffers.length < 4) buffers.push(into);
}
