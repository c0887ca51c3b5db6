// The engine's one operation slot: at most one long operation (a backup, a restore into a
// folder, saving to a file, a check, a forget) runs in an engine at a time, because each
// wants the cores, the repository's index and, for check and forget, restic's exclusive lock.
// The slot knows what runs, since when, for whom and how far it is; `cancel` aborts it. A
// second operation is refused with BUSY naming the first (the page decides whether to queue:
// web/state/operation.svelte.ts); it is never silently queued here.

import { CairnError } from '../../core/errors';
import type { ProgressSnapshot } from '../../core/progress';
import type { OperationKind, OperationOwner, OperationView } from '../api';
import { EngineFault } from '../errors';

/** What an operation gets from the slot: its signal and a progress reporter that the slot reads too. */
export interface SlotRun {
  signal: AbortSignal;
  /** Records `p` as the operation's progress, then hands it on to `onProgress`. */
  onProgress?: (p: ProgressSnapshot) => void;
}

const WORDS: Record<OperationKind, string> = {
  backup: 'a backup',
  restore: 'a restore',
  save: 'saving a file',
  check: 'a check',
  forget: 'removing snapshots',
};

interface Held {
  view: OperationView;
  abort: AbortController;
}

export class OperationSlot {
  #held: Held | undefined;
  #idle: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The running operation (a copy), or undefined when the slot is free. */
  get current(): OperationView | undefined {
    return this.#held && { ...this.#held.view };
  }

  /**
   * Runs `fn` holding the slot; rejects with BUSY (detail: kind, by, since) while another
   * operation holds it. `onProgress` is the caller's listener, wrapped so the slot keeps the
   * last report.
   */
  async run<T>(
    kind: OperationKind,
    owner: OperationOwner | undefined,
    onProgress: ((p: ProgressSnapshot) => void) | undefined,
    fn: (run: SlotRun) => Promise<T>,
  ): Promise<T> {
    const busy = this.#held?.view;
    if (busy) throw busyError(busy);
    const held: Held = { view: { kind, owner: owner ?? { by: 'user' }, since: this.#now(), cancelling: false }, abort: new AbortController() };
    this.#held = held;
    const report = (p: ProgressSnapshot) => {
      held.view.progress = p;
      onProgress?.(p);
    };
    try {
      return await fn({ signal: held.abort.signal, onProgress: report });
    } finally {
      this.#release(held);
    }
  }

  /** Aborts the running operation (it rejects with `reason`, ABORTED by default); false when none runs. */
  cancel(reason: unknown = new CairnError('ABORTED', 'cancelled by the user')): boolean {
    const held = this.#held;
    if (!held) return false;
    held.view.cancelling = true;
    held.abort.abort(reason);
    return true;
  }

  /** Resolves once no operation holds the slot (at once when none does). */
  idle(): Promise<void> {
    if (!this.#held) return Promise.resolve();
    if (!this.#idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#idle = { promise, resolve };
    }
    return this.#idle.promise;
  }

  #release(held: Held): void {
    if (this.#held !== held) return;
    this.#held = undefined;
    this.#idle?.resolve();
    this.#idle = undefined;
  }
}

/** The refusal of a second operation: says what runs, and carries it for the page's message. */
function busyError(running: OperationView): EngineFault {
  return new EngineFault('BUSY', `${WORDS[running.kind]} is still running`, {
    detail: { kind: running.kind, by: running.owner.by, plan: running.owner.plan?.name, since: running.since },
  });
}
