// The page's one operation slot, mirroring the engine's (workers/engine/operation-slot.ts) and
// shared with this browser's other tabs on the same repository (../lib/operation-locks.ts).
// Backup, restore, check, forget and snapshot removal acquire it here before they ask the
// engine; the plan runner holds it for a plan's backup and the retention after it. Lock,
// leaving the page, a dropped folder, a plan coming due and a second tab all read the same
// `current`: what runs, since when, started by whom, in this tab or another.
//
// What happens when something is asked for while an operation runs (here or in another tab
// on the same repository):
//
// | asked for                                           | while an operation runs                       |
// | --------------------------------------------------- | --------------------------------------------- |
// | back up, restore / download, check, forget, delete  | refused, saying what runs and since when      |
// | a snapshot — by hand                                | (describeBusy); nothing is recorded           |
// | a plan coming due, or its "Run now"                 | queued: it starts when the slot is free       |
// | the retention after a plan's own backup             | joins the plan's hold (`within`), no gap      |
// | a folder dropped on the page                        | refused with a message; nothing is taken      |
// | Lock                                                | this tab's: asks "… is running. Stop it and   |
// |                                                     | lock?"; another tab's: locks, it runs on      |
// | leaving or closing the tab                          | this tab's: the browser asks (beforeunload)   |
// | a second tab opening the repository                 | shows what runs in the first, since when;     |
// |                                                     | its own starts follow the rows above          |

import type { OperationKind, OperationOwner } from '../../workers/api';
import { engine } from '../lib/engine';
import { describeBusy, type Described } from '../lib/messages';
import { holdSlot, onOtherTabs, runningOn, THIS_TAB, type SlotInfo } from '../lib/operation-locks';
import { session } from './session.svelte';

export interface RunningOperation extends SlotInfo {
  /** It runs in another tab of this browser. */
  elsewhere: boolean;
}

/** The slot, held: `signal` is aborted by cancel(); release() frees it (once). */
export interface Hold {
  readonly signal: AbortSignal;
  release(): void;
}

export interface AcquireOptions {
  /** Queue behind the running operation instead of being refused (plans). */
  wait?: boolean;
  /** Joins this hold (a plan's run) instead of taking the slot. */
  within?: Hold;
  /** Stops the operation's page side too (a backup's listing), besides the engine's. */
  cancel?: () => void;
}

export const BY_USER: OperationOwner = { by: 'user' };

/** How often a tab looks again at another tab's operation (a closed tab says nothing). */
const POLL_MS = 3000;

export const isHold = (h: Hold | Described): h is Hold => 'release' in h;

class Operation {
  #here = $state.raw<RunningOperation | undefined>();
  #elsewhere = $state.raw<RunningOperation | undefined>();
  #hold: Hold | undefined;
  #abort: AbortController | undefined;
  #cancelPage: (() => void) | undefined;
  #idle: (() => void)[] = [];
  #poll: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    onOtherTabs(() => void this.refresh());
  }

  /** What runs: this tab's operation, else another tab's on the open repository. */
  get current(): RunningOperation | undefined {
    return this.#here ?? this.#elsewhere;
  }
  /** This tab's operation (what Lock and leaving would stop). */
  get here(): RunningOperation | undefined {
    return this.#here;
  }

  /** Why `what` cannot start now, from what this tab knows (acquire asks the other tabs too). */
  refusal(what?: string): Described | undefined {
    const c = this.current;
    return c && describeBusy(c, what);
  }

  /** Takes the slot for `kind`, or says why not (see the table above). */
  async acquire(kind: OperationKind, owner: OperationOwner = BY_USER, opts: AcquireOptions = {}): Promise<Hold | Described> {
    if (opts.within && opts.within === this.#hold && this.#here) return this.#join(kind, opts.cancel);
    const info: SlotInfo = { kind, owner, since: Date.now(), tab: THIS_TAB };
    if (!opts.wait && this.current) return describeBusy(this.current);
    for (;;) {
      while (opts.wait && this.#here) await new Promise<void>((r) => this.#idle.push(r));
      if (!opts.wait && this.#here) return describeBusy(this.#here);
      const repo = session.info?.id;
      const slot = repo ? await holdSlot(repo, info, !!opts.wait) : { release: () => {} };
      if (!slot) {
        await this.refresh();
        return describeBusy(this.current ?? { ...info, elsewhere: true });
      }
      if (!this.#here) return this.#take({ ...info, since: Date.now() }, slot.release, opts.cancel);
      slot.release(); // this tab started another meanwhile (a browser without Web Locks): wait again
    }
  }

  /** Stops this tab's operation (its page side and the engine's). */
  async cancel(): Promise<void> {
    if (!this.#here) return;
    this.#abort?.abort({ code: 'ABORTED', message: 'cancelled by the user', retryable: false });
    this.#cancelPage?.();
    await engine().cancel();
  }

  /** Looks again at what the other tabs run on the open repository. */
  async refresh(): Promise<void> {
    const repo = session.info?.id;
    const other = repo ? (await runningOn(repo)).find((o) => o.tab !== THIS_TAB) : undefined;
    this.#elsewhere = other && { ...other, elsewhere: true };
    clearTimeout(this.#poll);
    if (other) this.#poll = setTimeout(() => void this.refresh(), POLL_MS);
  }

  #take(info: SlotInfo, free: () => void, cancelPage?: () => void): Hold {
    const abort = new AbortController();
    let released = false;
    const hold: Hold = {
      signal: abort.signal,
      release: () => {
        if (released) return;
        released = true;
        free();
        if (this.#hold !== hold) return;
        this.#here = this.#hold = this.#abort = this.#cancelPage = undefined;
        for (const r of this.#idle.splice(0)) r();
      },
    };
    this.#here = { ...info, elsewhere: false };
    this.#hold = hold;
    this.#abort = abort;
    this.#cancelPage = cancelPage;
    return hold;
  }

  /** A plan's retention inside its run: the slot says what runs now, and back after. */
  #join(kind: OperationKind, cancelPage?: () => void): Hold {
    const outer = this.#here!;
    const outerCancel = this.#cancelPage;
    this.#here = { ...outer, kind };
    if (cancelPage) this.#cancelPage = cancelPage;
    return {
      signal: this.#hold!.signal,
      release: () => {
        if (!this.#here) return;
        this.#here = { ...this.#here, kind: outer.kind };
        this.#cancelPage = outerCancel;
      },
    };
  }
}

export const operation = new Operation();

/**
 * e2e only (compiled away elsewhere): holds a started operation in the slot until the test
 * lets it go (window.__cairnTestOperationGate), or until it is cancelled, so tests can ask for
 * a second one while the first surely runs.
 */
export async function testGate(kind: OperationKind, hold: Hold): Promise<void> {
  if (!__CAIRN_TEST_HOOKS__ || !window.__cairnTestOperationGate) return;
  const aborted = new Promise<never>((_, reject) => {
    if (hold.signal.aborted) reject(hold.signal.reason);
    hold.signal.addEventListener('abort', () => reject(hold.signal.reason));
  });
  await Promise.race([window.__cairnTestOperationGate(kind), aborted]);
}
