// The app's repository check: restic's check (core/check) under restic's exclusive lock, reading
// the chosen share of the data on the decode workers, then naming the files the damage touches.
// It reads the storage itself, never the offline cache: a damaged index or snapshot in a bucket
// must not hide behind the good copy this browser kept of it.

import { affectedPaths, damagedBlobs } from '../../core/check/affected';
import { check, type CheckOptions, type CheckProblem } from '../../core/check/check';
import { expectedPackSize } from '../../core/pack/reader';
import { ProgressTracker, type ProgressSnapshot } from '../../core/progress';
import { Lock } from '../../core/repository/lock';
import { Repository } from '../../core/repository/repository';
import { listSnapshots } from '../../core/repository/snapshots';
import type { PackedBlob } from '../../core/pack/header';
import type { CheckReportView, CheckShare } from '../tools-api';
import { browserDecodePool } from '../pool/decode-pool';
import { saverWorkerCount } from '../pool/browser-pool';
import type { Owner } from './open';
import { engineOwner } from './pack-journal';
import type { Session } from './session';

const PROBLEMS_SHOWN = 200;

/** The phase lines core/check says, in the words the app shows. */
const PHASES: [RegExp, string][] = [
  [/^load indexes/, 'Reading the index'],
  [/^check all packs/, 'Checking the data files are all there'],
  [/^check snapshots/, 'Checking snapshots and folders'],
  [/^read /, 'Reading data'],
];

/** A repository over the storage itself (no cache, no tree cache), sharing the session's key. */
function uncached(s: Session): Repository {
  return new Repository(s.cached?.inner ?? s.backend, s.repo.key, s.repo.keyID, s.repo.config);
}

export async function runCheck(
  s: Session,
  share: CheckShare,
  owner: Owner,
  signal: AbortSignal,
  onProgress?: (p: ProgressSnapshot) => void,
): Promise<CheckReportView> {
  s.requireOnline('A check');
  const started = performance.now();
  const repo = uncached(s);
  const progress = new ProgressTracker('Starting', onProgress);
  const lock = await Lock.acquire(repo, await engineOwner(owner.hostname, owner.username), true, signal);
  const decoders = share.kind === 'none' ? undefined : browserDecodePool();
  try {
    const opts: CheckOptions = {
      signal,
      readData: share.kind === 'all',
      readDataSubset: share.kind === 'group' ? { kind: 'bucket', n: share.n, t: share.t } : undefined,
      verifyPack: decoders?.verifyPack,
      readConcurrency: saverWorkerCount({}) + 2,
      onMessage: (line) => {
        progress.phase = PHASES.find(([re]) => re.test(line))?.[1] ?? progress.phase;
        progress.tick(true);
      },
      // Data files read as `files`, and as `bytes` too: the time left is estimated from them.
      onProgress: (done, total) => {
        progress.done.files = progress.done.bytes = done;
        progress.total.files = progress.total.bytes = total;
        progress.totalsFinal = true;
        progress.tick(done === total);
      },
    };
    const result = await check(repo, opts);
    const sizes = packSizes(repo);
    progress.phase = 'Finding the files it touches';
    progress.tick(true);
    const damaged = damagedBlobs(result.problems, repo.index);
    const found = await affectedPaths(repo, await listSnapshots(repo, { signal }), damaged, { signal, limit: 500 });
    const read = readPacks(sizes, share);
    return {
      ok: result.ok,
      share,
      errors: result.problems.filter((p) => !p.hint).length,
      hints: result.problems.filter((p) => p.hint).length,
      snapshots: result.snapshots,
      packs: result.packs,
      packsRead: read.packs,
      bytesRead: read.bytes,
      bytesTotal: [...sizes.values()].reduce((a, b) => a + b, 0),
      durationMs: Math.round(performance.now() - started),
      problems: problemViews(result.problems),
      damagedPacks: [...new Set(result.problems.filter((p) => !p.hint && p.pack).map((p) => p.pack!))],
      affected: found.paths.map((p) => ({ ...p })),
      affectedMore: found.more,
    };
  } finally {
    await decoders?.close();
    await lock.release().catch(() => {});
  }
}

/** Every indexed pack's size, as the index says (check has loaded it into `repo.index`). */
function packSizes(repo: Repository): Map<string, number> {
  const blobs = new Map<string, PackedBlob[]>();
  for (const e of repo.index.entries()) {
    const list = blobs.get(e.packID);
    if (list) list.push(e);
    else blobs.set(e.packID, [e]);
  }
  return new Map([...blobs].map(([id, list]) => [id, expectedPackSize(list)]));
}

/** The packs a share reads: restic's group n of t is the packs whose ID's first byte mod t is n-1. */
function readPacks(sizes: Map<string, number>, share: CheckShare): { packs: number; bytes: number } {
  let packs = 0;
  let bytes = 0;
  for (const [id, size] of sizes) {
    const chosen = share.kind === 'all' || (share.kind === 'group' && parseInt(id.slice(0, 2), 16) % share.t === share.n - 1);
    if (!chosen) continue;
    packs++;
    bytes += size;
  }
  return { packs, bytes };
}

function problemViews(problems: readonly CheckProblem[]): CheckReportView['problems'] {
  const fatalFirst = [...problems.filter((p) => !p.hint), ...problems.filter((p) => p.hint)];
  return fatalFirst.slice(0, PROBLEMS_SHOWN).map((p) => ({ kind: p.kind, code: p.code, message: p.message, pack: p.pack, blob: p.blob, hint: p.hint }));
}
