// The checker (restic internal/checker): index files against stored packs, every snapshot's
// trees and the blobs they reference, key and lock files, and with readData (or a subset)
// every chosen pack's bytes, header and blobs. Every problem names the damaged object;
// damaged or missing data blobs also name the files (and snapshots) that use them.

import type { ID } from '../id';
import type { PackedBlob } from '../pack/header';
import { expectedPackSize } from '../pack/reader';
import type { Repository } from '../repository/repository';
import type { PackVerifier } from '../restorer/decode-pool';
import { filesUsing } from './affected';
import { checkKeys, checkLocks, loadIndexes } from './objects';
import { checkPackList } from './packs';
import type { CheckProblem, Report } from './problems';
import { readPacks } from './read-packs';
import { selectSubset, type Subset } from './subset';
import { checkSnapshots } from './trees';

export type { CheckProblem } from './problems';

export interface CheckOptions {
  readData?: boolean;
  /** Read only these packs' data (restic --read-data-subset); see subset.ts. */
  readDataSubset?: Subset;
  /** For the random subsets (x%, size); Math.random by default. */
  random?: () => number;
  /** Verifies blobs on other threads while packs are read (see read-packs.ts). */
  verifyPack?: PackVerifier;
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
  const into =
    (list: CheckProblem[]): Report =>
    (p) =>
      list.push({ code: 'INTERNAL', ...p } as CheckProblem);
  const problem = into(problems);

  say('load indexes');
  const indexed = await loadIndexes(repo, problem, signal);
  await checkKeys(repo, problem, signal);
  await checkLocks(repo, problem, signal);

  say('check all packs');
  const stored = await checkPackList(repo, indexed, problem, signal);

  say('check snapshots, trees and blobs');
  // The data is read while the trees are checked (the decode threads would wait otherwise);
  // its message and its problems still come after the trees', in restic's order.
  const data = opts.readData || opts.readDataSubset ? dataToRead(indexed, stored, opts) : undefined;
  const dataProblems: CheckProblem[] = [];
  const reading = data && startReading(repo, data.packs, into(dataProblems), opts);
  let snapshots: number;
  try {
    snapshots = await checkSnapshots(repo, problem, signal);
  } catch (e) {
    await reading?.stop();
    throw e;
  }
  if (data && reading) {
    say(data.message);
    await reading.done;
    problems.push(...dataProblems);
  }
  await nameAffectedFiles(repo, problems, indexed, signal);
  return { problems, ok: !problems.some((p) => !p.hint), snapshots, packs: stored.size };
}

type PackToRead = { id: ID; size: number; blobs: PackedBlob[] };

/** The packs to read (all indexed and stored ones, or the chosen subset) and the line that says which. */
function dataToRead(indexed: Map<ID, PackedBlob[]>, stored: Map<ID, number>, opts: CheckOptions): { packs: PackToRead[]; message: string } {
  let packs: ID[];
  let message = 'read all data';
  if (opts.readDataSubset) {
    const sizes = new Map([...indexed].map(([id, blobs]) => [id, expectedPackSize(blobs)]));
    const choice = selectSubset(sizes, opts.readDataSubset, opts.random);
    message = choice.message;
    packs = choice.packs;
  } else packs = [...indexed.keys()];
  return { packs: packs.filter((p) => stored.has(p)).map((id) => ({ id, size: stored.get(id)!, blobs: indexed.get(id)! })), message };
}

/** Starts reading `packs`; `stop` ends it early (the caller failed) and waits for it to settle. */
function startReading(repo: Repository, packs: PackToRead[], problem: Report, opts: CheckOptions): { done: Promise<void>; stop(): Promise<void> } {
  const quit = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, quit.signal]) : quit.signal;
  const done = readPacks(repo, packs, problem, { signal, verifyPack: opts.verifyPack, concurrency: opts.readConcurrency, onProgress: opts.onProgress });
  done.catch(() => {}); // awaited by the caller, or dropped by stop
  return {
    done,
    async stop() {
      quit.abort();
      await done.catch(() => {});
    },
  };
}

/** Adds to each problem with damaged or missing data the files that use it. */
async function nameAffectedFiles(
  repo: Repository,
  problems: CheckProblem[],
  indexed: Map<ID, { type: string; id: ID }[]>,
  signal?: AbortSignal,
): Promise<void> {
  const lost = (p: CheckProblem): ID[] => {
    if (p.kind === 'blob' && p.blob && p.code !== 'BLOB_NOT_FOUND' && repo.index.has('data', p.blob)) return [p.blob];
    if (p.kind === 'pack-missing' && p.pack) return (indexed.get(p.pack) ?? []).filter((b) => b.type === 'data').map((b) => b.id);
    return [];
  };
  const wanted = new Set(problems.flatMap(lost));
  if (wanted.size === 0) return;
  const using = await filesUsing(repo, wanted, signal);
  for (const p of problems) {
    const files = [...new Set(lost(p).flatMap((b) => using.get(b) ?? []))];
    if (files.length === 0) continue;
    p.files = files.slice(0, 5);
    const more = files.length > 5 ? ` and ${files.length - 5} more` : '';
    p.message += `; used by ${p.files.join(', ')}${more}`;
  }
}
