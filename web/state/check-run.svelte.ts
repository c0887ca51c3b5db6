// Running a check of the open repository: which share of the data to read (a rotating group by
// default, so every pack is read over time), live progress, cancel, and the report — kept by
// ./check-results.svelte.ts as the repository's health (what the Health section and the
// overview both show), and recorded in the history like every operation.

import type { CheckReportView, CheckShare, ProgressSnapshot } from '../../workers/api';
import { engine, progressListener } from '../lib/engine';
import { checkRecord } from '../lib/health';
import { checkHistoryRecord, failedRecord, type OperationContext } from '../lib/history';
import { appError, describeError, type Described } from '../lib/messages';
import { checkResults } from './check-results.svelte';
import { history } from './history.svelte';
import { isHold, operation, testGate } from './operation.svelte';
import { network } from './network.svelte';
import { session } from './session.svelte';
import { settings } from './settings.svelte';

/** What the user picks: structure only, a rotating 1/t of the packs, or everything. */
export type ShareChoice = 'none' | 20 | 10 | 4 | 'all';

export const SHARE_CHOICES: { value: ShareChoice; label: string }[] = [
  { value: 'none', label: 'Structure only (no data read; quickest)' },
  { value: 20, label: 'A twentieth of the data (about 5 %), a different part each time' },
  { value: 10, label: 'A tenth of the data (about 10 %), a different part each time' },
  { value: 4, label: 'A quarter of the data (about 25 %), a different part each time' },
  { value: 'all', label: 'All the data (reads the whole repository)' },
];

class CheckRun {
  #running = $state(false);
  #cancelling = $state(false);
  #progress = $state.raw<ProgressSnapshot | undefined>();
  #report = $state.raw<{ repoId: string | undefined; view: CheckReportView } | undefined>();
  #error = $state.raw<Described | undefined>();

  get running(): boolean {
    return this.#running;
  }
  get cancelling(): boolean {
    return this.#cancelling;
  }
  get progress(): ProgressSnapshot | undefined {
    return this.#progress;
  }
  /** The last report of this session for repository `repoId` (with the damaged files' names). */
  reportFor(repoId: string | undefined): CheckReportView | undefined {
    return this.#report?.repoId === repoId ? this.#report?.view : undefined;
  }
  get error(): Described | undefined {
    return this.#error;
  }

  shareOf(choice: ShareChoice): CheckShare {
    if (choice === 'none' || choice === 'all') return { kind: choice };
    return checkResults.nextShare(session.info?.id, choice);
  }

  async start(choice: ShareChoice): Promise<void> {
    if (this.#running) return;
    const repoId = session.info?.id;
    this.#report = undefined;
    this.#error = undefined;
    this.#progress = undefined;
    if (session.kind === 's3' && !network.online) {
      this.#error = describeError(appError('NEEDS_NETWORK'));
      return;
    }
    const hold = await operation.acquire('check');
    if (!isHold(hold)) {
      this.#error = hold;
      return;
    }
    this.#running = true;
    this.#cancelling = false;
    const op: OperationContext = { repo: repoId ?? '', repoLabel: session.label, trigger: 'manual', host: settings.hostName, start: Date.now() };
    try {
      await testGate('check', hold);
      const report = await engine().checkRepository(
        this.shareOf(choice),
        progressListener((p) => (this.#progress = p)),
      );
      this.#report = { repoId, view: report };
      const end = Date.now();
      if (repoId) await checkResults.record(checkRecord(repoId, report, end));
      await history.record(checkHistoryRecord(op, end, report));
    } catch (e) {
      this.#error = describeError(e);
      await history.record(failedRecord(op, 'check', Date.now(), this.#error));
    } finally {
      hold.release();
      this.#running = false;
      this.#cancelling = false;
    }
  }

  async cancel(): Promise<void> {
    if (!this.#running) return;
    this.#cancelling = true;
    await operation.cancel();
  }

  clear(): void {
    if (this.#running) return;
    this.#report = undefined;
    this.#error = undefined;
    this.#progress = undefined;
  }
}

export const checkRun = new CheckRun();
