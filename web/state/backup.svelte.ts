// One backup run as the UI sees it: the request goes to the engine worker (which reads, hashes
// and encrypts the files in its own workers); live progress comes back a few times a second;
// the result is a restic-like summary with the files that could not be read.

import type { BackupResultView, BackupSource, OperationOwner, ProgressSnapshot } from '../../workers/api';
import * as Comlink from 'comlink';
import { servedFileList } from '../../workers/client/file-server';
import { engine, progressListener } from '../lib/engine';
import { backupRecord, failedRecord, type OperationContext, type OperationTrigger } from '../lib/history';
import { describeError, isCode, type Described } from '../lib/messages';
import { history } from './history.svelte';
import { BY_USER, isHold, operation, testGate, type Hold } from './operation.svelte';
import { session } from './session.svelte';
import { settings } from './settings.svelte';

export interface BackupSettings {
  /** Shown while it runs ("Photos"). */
  name: string;
  tags: string[];
  excludes: string[];
  force?: boolean;
  /** Who started it, for the history (default: by hand). */
  trigger?: OperationTrigger;
  /** The plan it runs for. */
  plan?: { id: string; name: string };
  /** What the browser did not hand over (empty folders, links), for the summary's "not backed up". */
  notes?: string[];
  /** The plan's hold on the operation slot (./operation.svelte.ts), which the backup joins. */
  within?: Hold;
}

class BackupRun {
  #running = $state(false);
  #cancelling = $state(false);
  #name = $state('');
  #progress = $state.raw<ProgressSnapshot | undefined>();
  #result = $state.raw<BackupResultView | undefined>();
  #error = $state.raw<Described | undefined>();
  #notes = $state.raw<string[]>([]);
  /** How far the page is in reading a picked list's sizes and times, while it does. */
  #listing = $state.raw<{ done: number; total: number } | undefined>();
  /** Cancels the page's own part of a start (reading a picked list's sizes and times). */
  #listingAbort = new AbortController();

  get running(): boolean {
    return this.#running;
  }
  get cancelling(): boolean {
    return this.#cancelling;
  }
  get name(): string {
    return this.#name;
  }
  get progress(): ProgressSnapshot | undefined {
    return this.#progress;
  }
  get result(): BackupResultView | undefined {
    return this.#result;
  }
  get error(): Described | undefined {
    return this.#error;
  }
  /** The running or last backup's notes on what the browser did not hand over. */
  get notes(): string[] {
    return this.#notes;
  }
  /** Set while the page reads a picked list's sizes and times (Chromium asks for each file). */
  get listing(): { done: number; total: number } | undefined {
    return this.#listing;
  }

  /** Resolves with the result, or undefined when it failed or was cancelled (see `error`). */
  async start(source: BackupSource, opts: BackupSettings): Promise<BackupResultView | undefined> {
    if (this.#running) return undefined;
    const owner: OperationOwner = opts.plan ? { by: 'plan', plan: opts.plan } : BY_USER;
    const hold = await operation.acquire('backup', owner, { within: opts.within, cancel: () => this.#listingAbort.abort() });
    if (!isHold(hold)) {
      this.#error = hold;
      return undefined;
    }
    this.#running = true;
    this.#cancelling = false;
    this.#name = opts.name;
    this.#notes = opts.notes ?? [];
    this.#progress = undefined;
    this.#result = undefined;
    this.#error = undefined;
    performance.mark('cairn:backup-start');
    let served: ReturnType<typeof servedFileList> | undefined;
    this.#listingAbort = new AbortController();
    const op: OperationContext = {
      repo: session.info?.id ?? '',
      repoLabel: session.label,
      trigger: opts.trigger ?? 'manual',
      planId: opts.plan?.id,
      planName: opts.plan?.name,
      host: settings.hostName,
      start: Date.now(),
    };
    try {
      await testGate('backup', hold);
      const onProgress = progressListener((p) => (this.#progress = p));
      // A webkitdirectory list stays here: the engine gets its paths (sizes and times follow
      // while it runs), and the workers that read the files ask this page for just those Files.
      served =
        source.kind === 'files'
          ? servedFileList(
              source.files,
              source.relativePaths,
              this.#listingAbort.signal,
              (done, total) => (this.#listing = done < total ? { done, total } : undefined),
            )
          : undefined;
      const request = { source: served?.source ?? source, hostname: op.host, tags: opts.tags, excludes: opts.excludes, force: opts.force, owner };
      const result = await engine().backup(served ? Comlink.transfer(request, [served.source.server]) : request, onProgress);
      this.#result = result;
      await history.record(backupRecord(op, Date.now(), result));
      return result;
    } catch (e) {
      this.#error = describeError(e);
      if (isCode(e, 'ABORTED')) this.#progress = undefined;
      await history.record(failedRecord(op, 'backup', Date.now(), this.#error));
      return undefined;
    } finally {
      served?.close();
      this.#listing = undefined;
      performance.mark('cairn:backup-end');
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

  reset(): void {
    if (this.#running) return;
    this.#progress = undefined;
    this.#result = undefined;
    this.#error = undefined;
  }
}

export const backupRun = new BackupRun();
