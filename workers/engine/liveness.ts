// Which engines of this browser are still running, for what restic decides with a PID: a lock
// (or a journal of stored packs) left by a process of this host that is gone is stale. A tab
// has no PID, so each engine picks a random number for its lock files and holds a Web Lock
// named after it for as long as it lives; the browser lets go of it when the tab (and with it
// the worker) goes away, however that happens. navigator.locks.query() then tells any other
// tab of this origin which of those numbers still have a living engine behind them.

const PREFIX = 'cairn-engine:';

let pid: number | undefined;
let holding: Promise<void> | undefined;

/** This engine's number in lock files; held as a Web Lock from the first call on. */
export function enginePid(): number {
  pid ??= 1 + Math.floor(Math.random() * 2 ** 31);
  holding ??= hold(pid);
  return pid;
}

function hold(n: number): Promise<void> {
  const locks = globalThis.navigator?.locks;
  if (!locks) return Promise.resolve();
  return new Promise<void>((granted) => {
    // The callback's promise never settles: the lock is ours until this worker ends.
    locks.request(PREFIX + n, () => (granted(), new Promise<never>(() => {}))).catch(() => granted());
  });
}

/**
 * The numbers of the engines of this origin that are alive, this one included (it takes its
 * lock first), or undefined where the browser has no Web Locks (then only age makes a lock stale).
 */
export async function liveEngines(): Promise<Set<number> | undefined> {
  const locks = globalThis.navigator?.locks;
  if (!locks) return undefined;
  enginePid();
  await holding;
  const { held = [] } = await locks.query();
  const out = new Set<number>();
  for (const l of held) if (l.name?.startsWith(PREFIX)) out.add(Number(l.name.slice(PREFIX.length)));
  return out;
}
