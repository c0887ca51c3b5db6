// The operation slot across this browser's tabs, per repository, with Web Locks: the tab that
// runs an operation holds `cairn-operation:<repo>` (exclusive) and, beside it, a lock whose name
// describes the operation (`cairn-operation-info:<repo>:<json>`), which any tab reads with
// locks.query(). The browser lets go of both when the tab goes, however it goes, so a closed
// or crashed tab never leaves a stale "running". A BroadcastChannel tells the other tabs to
// look again at once. Where the browser has no Web Locks, each tab only knows its own.

import type { OperationKind, OperationOwner } from '../../workers/api';

export interface SlotInfo {
  kind: OperationKind;
  owner: OperationOwner;
  since: number;
  /** The tab running it (random per page load). */
  tab: string;
}

/** This tab's name in SlotInfo. */
export const THIS_TAB = crypto.randomUUID();

const SLOT = 'cairn-operation:';
const INFO = 'cairn-operation-info:';
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('cairn-operation') : undefined;
const locks = (): LockManager | undefined => globalThis.navigator?.locks;

/** Calls `fn` when another tab starts or ends an operation. */
export function onOtherTabs(fn: () => void): void {
  channel?.addEventListener('message', fn);
}

/**
 * Holds the repository's slot for `info` until `release` is called; undefined when another
 * tab holds it and `wait` is false (with `wait`, resolves once that tab's operation ended).
 */
export async function holdSlot(repo: string, info: SlotInfo, wait: boolean): Promise<{ release: () => void } | undefined> {
  const l = locks();
  if (!l) return { release: () => {} };
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const granted = await new Promise<boolean>((answer) => {
    const held = (lock: Lock | null) => {
      answer(lock !== null);
      return lock ? released : undefined;
    };
    l.request(SLOT + repo, { ifAvailable: !wait }, held).catch(() => answer(false));
  });
  if (!granted) return undefined;
  let described!: () => void;
  await new Promise<void>((r) => {
    void l.request(INFO + repo + ':' + JSON.stringify(info), () => (r(), new Promise<void>((done) => (described = done)))).catch(() => r());
  });
  channel?.postMessage('changed');
  return {
    release: () => {
      described?.();
      release();
      channel?.postMessage('changed');
    },
  };
}

/** The operations running on `repo` in this browser's tabs (this one's included), as their info locks say. */
export async function runningOn(repo: string): Promise<SlotInfo[]> {
  const l = locks();
  if (!l) return [];
  const { held = [] } = await l.query();
  const prefix = INFO + repo + ':';
  const out: SlotInfo[] = [];
  for (const h of held) {
    if (!h.name?.startsWith(prefix)) continue;
    try {
      out.push(JSON.parse(h.name.slice(prefix.length)) as SlotInfo);
    } catch {
      // not ours to read
    }
  }
  return out;
}
