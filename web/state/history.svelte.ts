// The history of operations kept on this device (../lib/history.ts says what a record holds):
// every backup, restore, forget, prune and check, newest first. The repository's health is not
// read from here but from the kept check results (./check-results.svelte.ts), which the
// Repository page and the overview both show.

import { addHistory, listHistory } from '../lib/db';
import { filterHistory, historyJson, latest, type HistoryFilter, type HistoryRecord, type OperationKind } from '../lib/history';

class History {
  #items = $state.raw<HistoryRecord[]>([]);
  #loaded = $state(false);

  /** Every kept operation, newest first. */
  get items(): HistoryRecord[] {
    return this.#items;
  }
  get loaded(): boolean {
    return this.#loaded;
  }

  async load(): Promise<void> {
    this.#items = await listHistory();
    this.#loaded = true;
  }

  /** Keeps a finished operation. A full or blocked database never fails the operation itself. */
  async record(r: HistoryRecord): Promise<void> {
    this.#items = [r, ...this.#items.filter((x) => x.id !== r.id)];
    try {
      await addHistory(r);
    } catch (e) {
      console.warn('history not kept:', e);
    }
  }

  /** One repository's operations (by repository ID), narrowed to a plan and/or kind, newest first. */
  of(repo: string | undefined, f: HistoryFilter = {}): HistoryRecord[] {
    return filterHistory(
      this.#items.filter((r) => r.repo === repo),
      f,
    );
  }

  last(repo: string | undefined, kind: OperationKind, planId?: string): HistoryRecord | undefined {
    return latest(
      this.#items.filter((r) => r.repo === repo),
      kind,
      planId,
    );
  }

  /** The records as a JSON file's text (restic's field names where it has them). */
  exportJson(records: readonly HistoryRecord[]): string {
    return historyJson(records, Date.now());
  }
}

export const history = new History();
