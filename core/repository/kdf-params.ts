// scrypt parameters of key files: which ones a key file may ask for (validated before any
// work, since anyone who can write to the repository can add a key file), and which new keys
// get — calibrated on the creating machine as restic does (internal/repository/key.go: 500 ms,
// 60 MiB, through elithrar/simple-scrypt's Calibrate), or a fixed floor where calibrating is not
// an option (the browser: restic's typical keys, N = 2^15, r = 8, p = 5–7 on a desktop).

import { CairnError } from '../errors';

export interface KdfParams {
  N: number;
  r: number;
  p: number;
}

/**
 * New keys where the KDF is not calibrated (the browser): no weaker than restic's typical key.
 * restic 0.14 calibrates N = 2^15, r = 8, p = 5–7 on a 2-core x86 VM; hash-wasm in a worker
 * derives this in ~0.9 s on that VM (120 ms per unit of p).
 */
export const DEFAULT_KDF: KdfParams = { N: 32768, r: 8, p: 8 };

/** restic's calibration target (internal/repository/key.go KDFTimeout, KDFMemory). */
const CALIBRATE_MS = 500;
const CALIBRATE_MEMORY_MIB = 60;

/** N=2^20 with r=8 is 1 GiB. */
const MAX_N = 1 << 20;
/** scrypt needs 128·N·r bytes: bound the product (N=2^20 with r=64 would be 8 GiB). */
const MAX_MEMORY = 1 << 30;
/**
 * Work is N·r·p (scrypt's time grows with each). 2^26 is 256 times a restic key's p = 1 run
 * (N = 2^15, r = 8): some 10–30 s. restic's own keys stay near 2^21 (p ≤ ~25 on the fastest
 * machines: its calibration aims at 0.5 s), rustic's at 2^20 (N = 2^17, r = 8, p = 1).
 */
const MAX_WORK = 2 ** 26;

/** Refuses parameters that are invalid or would exhaust memory or time, before any work. */
export function validateKdfParams(p: KdfParams, id: string): void {
  const ints = Number.isInteger(p.N) && Number.isInteger(p.r) && Number.isInteger(p.p);
  const ok =
    ints &&
    p.N > 1 &&
    p.N <= MAX_N &&
    (p.N & (p.N - 1)) === 0 &&
    p.r >= 1 &&
    p.r <= 64 &&
    p.p >= 1 &&
    p.r * p.p < 1 << 30 &&
    128 * p.N * p.r <= MAX_MEMORY &&
    p.N * p.r * p.p <= MAX_WORK;
  if (!ok) {
    throw new CairnError('BAD_KEY_FILE', `key ${id.slice(0, 8)}: unsupported scrypt parameters N=${p.N} r=${p.r} p=${p.p} (${why(p, ints)})`, {
      detail: { key: id },
    });
  }
}

function why(p: KdfParams, ints: boolean): string {
  if (!ints) return 'not whole numbers';
  if (p.N <= 1 || (p.N & (p.N - 1)) !== 0 || p.N > MAX_N) return `N must be a power of two up to 2^20`;
  if (p.r < 1 || p.p < 1) return 'r and p must be at least 1';
  if (128 * p.N * p.r > MAX_MEMORY || p.r > 64) return 'more than 1 GiB of memory';
  return 'more work than 256 times a restic key';
}

/** Runs scrypt once with these parameters (what calibration times). */
export type ScryptRun = (p: KdfParams) => Promise<void>;

/**
 * simple-scrypt's Calibrate, as restic calls it: r = 8; N the largest power of two whose
 * 128·r·N stays under `memoryMiB`, halved while one run takes longer than `targetMs`; then p
 * scaled so a run takes about `targetMs` (and lowered again while a run with it is too slow).
 */
export async function calibrateKdf(run: ScryptRun, opts: { targetMs?: number; memoryMiB?: number; now?: () => number } = {}): Promise<KdfParams> {
  const target = opts.targetMs ?? CALIBRATE_MS;
  const now = opts.now ?? (() => performance.now());
  const memory = (opts.memoryMiB ?? CALIBRATE_MEMORY_MIB) * 1024 * 1024;
  const time = async (p: KdfParams) => {
    const t = now();
    await run(p);
    return Math.max(now() - t, 1e-3);
  };
  const params: KdfParams = { N: 1, r: 8, p: 1 };
  while (128 * params.r * params.N < memory) params.N *= 2;
  params.N /= 2;
  // The first run pays for fresh memory (and Node's thread pool starting): 2–3 times a warm
  // run, which would make p a half or a third of what the machine does in 0.5 s. Go's first
  // run pays little; the faster of two runs is what restic's measurement sees.
  let dur = Math.min(await time(params), await time(params));
  while (dur > target && params.N > 2) {
    params.N /= 2;
    dur = await time(params);
  }
  params.p = Math.max(1, Math.floor(target / dur));
  dur = await time(params);
  while (dur > target && params.p > 1) {
    params.p = Math.max(1, Math.floor(target / (dur / params.p)));
    dur = await time(params);
  }
  // A machine fast enough to go past the work bound gets the bound: its keys must open elsewhere.
  params.p = Math.min(params.p, Math.floor(MAX_WORK / (params.N * params.r)));
  validateKdfParams(params, 'new');
  return params;
}
