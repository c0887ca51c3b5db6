// Getting files back: into a picked folder (File System Access), or as a download — one file
// or a folder as a ZIP — streamed by the service worker from the engine worker, never held
// whole in memory. Every blob is checked against its hash in the engine; files that fail are
// listed and the rest still restore.

import type { DownloadKind, ProgressSnapshot, RestorePatterns, RestoreResultView, SelectionRequest } from '../../workers/api';
import { startDownload, startSelectionDownload } from '../lib/download';
import { engine, progressListener } from '../lib/engine';
import { ensurePermission, pickDirectory } from '../lib/fsa';
import { appError, describeError, type Described } from '../lib/messages';
import { failedRecord, restoreRecord, type OperationContext } from '../lib/history';
import { history } from './history.svelte';
import { isHold, operation, testGate } from './operation.svelte';
import { network } from './network.svelte';
import { session } from './session.svelte';

export type RestoreKind = 'folder' | DownloadKind;

class RestoreRun {
  #running = $state(false);
  #cancelling = $state(false);
  #kind = $state<RestoreKind>('folder');
  #label = $state('');
  #progress = $state.raw<ProgressSnapshot | undefined>();
  #result = $state.raw<RestoreResultView | undefined>();
  #error = $state.raw<Described | undefined>();

  get running(): boolean {
    return this.#running;
  }
  get cancelling(): boolean {
    return this.#cancelling;
  }
  get kind(): RestoreKind {
    return this.#kind;
  }
  get label(): string {
    return this.#label;
  }
  get progress(): ProgressSnapshot | undefined {
    return this.#progress;
  }
  get result(): RestoreResultView | undefined {
    return this.#result;
  }
  get error(): Described | undefined {
    return this.#error;
  }

  /** Bucket data needs the network; metadata browsing does not. */
  get needsNetwork(): boolean {
    return session.kind === 's3' && !network.online;
  }

  /** Asks for a folder (must run in the click handler), then restores `path` into it. */
  async toFolder(snapshotId: string, path: string[], label: string): Promise<void> {
    await this.#run('folder', label, subjectOf(snapshotId, path, 'folder'), async (onProgress) => {
      const target = await pickDirectory('restore');
      await ensurePermission(target, 'readwrite');
      return engine().restoreToFolder(snapshotId, path, target, progressListener(onProgress));
    });
  }

  /** Streams one file, or a folder as a ZIP, to the browser's downloads. */
  async download(snapshotId: string, path: string[], kind: DownloadKind, label: string): Promise<void> {
    await this.#run(kind, label, subjectOf(snapshotId, path, kind), (onProgress) => startDownload(snapshotId, path, kind, onProgress));
  }

  /** Several ticked items of a folder as one ZIP. */
  async downloadSelection(req: SelectionRequest, label: string): Promise<void> {
    await this.#run('zip', label, selectionSubject(req, 'zip'), (onProgress) => startSelectionDownload(req, onProgress));
  }

  /** The ticked items (or the whole folder) into a picked folder, narrowed by restic patterns. */
  async selectionToFolder(req: SelectionRequest, patterns: RestorePatterns, label: string): Promise<void> {
    await this.#run('folder', label, selectionSubject(req, 'folder'), async (onProgress) => {
      const target = await pickDirectory('restore');
      await ensurePermission(target, 'readwrite');
      return engine().restoreSelection(req, target, patterns, progressListener(onProgress));
    });
  }

  async cancel(): Promise<void> {
    if (!this.#running) return;
    this.#cancelling = true;
    await operation.cancel();
  }

  dismiss(): void {
    if (this.#running) return;
    this.#result = undefined;
    this.#error = undefined;
    this.#progress = undefined;
  }

  async #run(
    kind: RestoreKind,
    label: string,
    subject: string,
    work: (onProgress: (p: ProgressSnapshot) => void) => Promise<RestoreResultView>,
  ): Promise<void> {
    if (this.#running) return;
    this.#kind = kind;
    this.#label = label;
    this.#result = undefined;
    this.#progress = undefined;
    this.#error = undefined;
    if (this.needsNetwork) {
      this.#error = describeError(appError('NEEDS_NETWORK'));
      return;
    }
    const hold = await operation.acquire('restore');
    if (!isHold(hold)) {
      this.#error = hold;
      return;
    }
    this.#running = true;
    this.#cancelling = false;
    const op: OperationContext = { repo: session.info?.id ?? '', repoLabel: session.label, trigger: 'manual', start: Date.now() };
    try {
      await testGate('restore', hold);
      this.#result = await work((p) => (this.#progress = p));
      await history.record(restoreRecord(op, Date.now(), subject, this.#result));
    } catch (e) {
      const d = describeError(e);
      if (!(d.code === 'ABORTED' && !this.#cancelling)) {
        this.#error = d; // a closed picker is no error
        await history.record(failedRecord(op, 'restore', Date.now(), d, subject));
      }
    } finally {
      hold.release();
      this.#running = false;
      this.#cancelling = false;
    }
  }
}

/** What a restore restored, for the history ("1a2b3c4d:/Documents as a ZIP"). */
function subjectOf(snapshotId: string, path: string[], kind: RestoreKind): string {
  const how = kind === 'zip' ? ' as a ZIP' : kind === 'file' ? ' (download)' : ' into a folder';
  return `${snapshotId.slice(0, 8)}:/${path.join('/')}${how}`;
}

/** What history says was restored: the folder and how many ticked items of it. */
function selectionSubject(req: SelectionRequest, kind: RestoreKind): string {
  const items = req.names.length ? ` (${req.names.length === 1 ? '1 item' : `${req.names.length} items`})` : '';
  return subjectOf(req.snapshotId, req.dir, kind) + items;
}

export const restoreRun = new RestoreRun();
