// The one place where tests turn a time bound into a limit. A bound belongs in a test only
// where it is the behaviour (a silent server is given up on, Ctrl-C stops the command, hostile
// input is refused before any expensive work); everything else asserts order or progress.
//
// Bounds are written for the shared 2-core runner this suite is developed on; the limit is
// that bound times CAIRN_TEST_TIME_SCALE (default 2, so a machine with both cores busy passes).
// Slower machines raise it; CAIRN_TEST_TIME_SCALE=1 checks the written bounds as they are.

const DEFAULT_SCALE = 2;

function scale(): number {
  const raw = process.env['CAIRN_TEST_TIME_SCALE'];
  if (raw === undefined || raw === '') return DEFAULT_SCALE;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`CAIRN_TEST_TIME_SCALE must be a positive number, not ${JSON.stringify(raw)}`);
  return n;
}

/** The limit for a bound of `ms` on this machine: `ms` times CAIRN_TEST_TIME_SCALE. */
export function timeLimit(ms: number): number {
  return Math.round(ms * scale());
}
