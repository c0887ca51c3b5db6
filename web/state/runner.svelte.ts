// Runs plans, one operation at a time: a plan's run queues for the operation slot
// (./operation.svelte.ts) while anything else runs, in this tab or another, then holds it for
// the plan's backup and the retention after it, records the run on the plan and in the
// history, applies the plan's retention rules (../lib/retention.ts) and says how it went in a
// notification. Folder access is checked first: where the browser asks again, the run waits
// for the user's click instead of failing (`waitingForClick`).

import type { BackupSource } from '../../workers/api';
import { ensurePermission, permissionState } from '../lib/fsa';
import { formatBytes } from '../lib/format';
import { failedRecord, type OperationTrigger } from '../lib/history';
import { appError, describeError, type Described } from '../lib/messages';
import { showNotification } from '../lib/notify';
import { planPaths, type Plan } from '../lib/plans';
import { engine } from '../lib/engine';
import { applyRetentionAfterBackup } from '../lib/retention';
import { backupRun } from './backup.svelte';
import { notesFor } from './choice.svelte';
import { history } from './history.svelte';
import { isHold, operation, type Hold } from './operation.svelte';
import { plans } from './plans.svelte';
import { session } from './session.svelte';
import { settings } from './settings.svelte';
import { snapshots } from './snapshots.svelte';

interface Queued {
  planId: string;
  trigger: OperationTrigger;
  /** The folder's files, picked for this run (a browser that cannot keep access to a folder). */
  picked?: BackupSource;
}

/** Every folder of the plan is kept as a handle (File System Access); else each run picks it. */
const keepsFolders = (p: Plan) => p.folders.every((f) => f.handle !== undefined);

class PlanRunner {
  #queue = $state.raw<Queued[]>([]);
  #current = $state.raw<Queued | undefined>();
  #waiting = $state.raw<string[]>([]);
  #draining = false;

  /** The plan running now. */
  get current(): Queued | undefined {
    return this.#current;
  }
  /** Plans whose turn comes next. */
  get queued(): Queued[] {
    return this.#queue;
  }
  /**
   * Plans that are due but need a click: to get the browser's permission for their folders
   * again, or — where the browser cannot keep access to a folder — to choose the folder.
   */
  get waitingForClick(): string[] {
    return this.#waiting;
  }

  /** Queued, running or waiting for a click: the scheduler leaves it alone. */
  isPending(planId: string): boolean {
    return this.#current?.planId === planId || this.#queue.some((q) => q.planId === planId) || this.#waiting.includes(planId);
  }

  /** From a click: asks for folder access where needed (the click's user activation), then runs. */
  async runNow(plan: Plan, trigger: OperationTrigger = 'manual'): Promise<void> {
    if (!keepsFolders(plan)) return; // such a plan runs from its folder chosen again: runPicked
    try {
      for (const f of plan.folders) await ensurePermission(f.handle!, 'read');
    } catch (e) {
      await this.#failedBeforeStart(plan, trigger, describeError(e));
      return;
    }
    this.#waiting = this.#waiting.filter((id) => id !== plan.id);
    this.enqueue(plan.id, trigger);
  }

  /** Runs a plan whose folder the browser cannot keep with the files just picked for it. */
  runPicked(plan: Plan, picked: BackupSource, trigger: OperationTrigger = 'manual'): void {
    const waited = this.#waiting.includes(plan.id);
    this.#waiting = this.#waiting.filter((id) => id !== plan.id);
    this.enqueue(plan.id, waited && trigger === 'manual' ? 'schedule' : trigger, picked);
  }

  enqueue(planId: string, trigger: OperationTrigger, picked?: BackupSource): void {
    if (this.#current?.planId === planId || this.#queue.some((q) => q.planId === planId)) return;
    this.#queue = [...this.#queue, { planId, trigger, picked }];
    void this.#drain();
  }

  /** Drops what waits for a repository that is closed now. */
  clear(): void {
    this.#queue = [];
    this.#waiting = [];
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#queue.length > 0) {
        const [next, ...rest] = this.#queue;
        const plan = plans.byId(next!.planId);
        if (!plan || !session.isOpen || session.entry?.id !== plan.repo) {
          this.#queue = rest;
          continue;
        }
        const source = next!.picked ?? (await this.#keptSource(plan, next!.trigger));
        if (!source) {
          this.#queue = this.#queue.filter((q) => q !== next);
          continue;
        }
        // Queued (still listed as such) until the slot is free.
        const hold = await operation.acquire('backup', { by: 'plan', plan: { id: plan.id, name: plan.name } }, { wait: true });
        this.#queue = this.#queue.filter((q) => q !== next);
        if (!isHold(hold)) continue;
        this.#current = next;
        try {
          if (session.isOpen && session.entry?.id === plan.repo) await this.#backUp(plan, next!.trigger, source, hold);
        } finally {
          hold.release();
          this.#current = undefined;
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * The plan's kept folders as a source, when the browser lets them be read without asking;
   * else the plan waits for a click (and says so in a notification), or fails when refused.
   */
  async #keptSource(plan: Plan, trigger: OperationTrigger): Promise<BackupSource | undefined> {
    if (!keepsFolders(plan)) {
      this.#waitForClick(
        plan,
        `Time to back up “${plan.name}”`,
        `Open Cairn and choose the folder “${plan.folders[0]?.name ?? ''}”: this browser cannot keep access to it.`,
      );
      return undefined;
    }
    const handles = plan.folders.map((f) => f.handle!);
    const states = await Promise.all(handles.map((h) => permissionState(h, 'read')));
    if (states.includes('denied')) return void (await this.#failedBeforeStart(plan, trigger, describeError(appError('PERMISSION_DENIED'))));
    if (states.some((s) => s !== 'granted')) {
      this.#waitForClick(
        plan,
        `Backup “${plan.name}” needs your click`,
        'The browser asks again for access to its folders. Open Cairn and click “Allow and run”.',
      );
      return undefined;
    }
    return handles.length === 1 ? { kind: 'handle', handle: handles[0]! } : { kind: 'handles', handles };
  }

  #waitForClick(plan: Plan, title: string, body: string): void {
    this.#waiting = [...this.#waiting, plan.id];
    void showNotification(title, body, `click-${plan.id}`);
  }

  async #backUp(plan: Plan, trigger: OperationTrigger, source: BackupSource, hold: Hold): Promise<void> {
    const start = Date.now();
    await plans.started(plan.id, start);
    const result = await backupRun.start(source, {
      name: plan.name,
      tags: plan.tags,
      excludes: plan.excludes,
      trigger,
      plan: { id: plan.id, name: plan.name },
      notes: notesFor(source, 'pick'),
      within: hold,
    });
    const end = Date.now();
    if (!result) {
      const error = backupRun.error;
      const cancelled = error?.code === 'ABORTED';
      await plans.finished(plan.id, { start, end, result: cancelled ? 'cancelled' : 'failure', error: error?.title });
      if (!cancelled)
        void showNotification(`Backup failed: ${plan.name}`, `${error?.title ?? 'Failed'}. ${error?.detail ?? error?.text ?? ''}`.trim(), `run-${plan.id}`);
      return;
    }
    await plans.finished(plan.id, { start, end, result: result.warnings.length ? 'warning' : 'success', snapshotId: result.snapshotId });
    const s = result.summary;
    void showNotification(
      `Backup finished: ${plan.name}`,
      `${s.totalFilesProcessed} files, ${formatBytes(s.totalBytesProcessed)} · ${s.filesNew} new, ${s.filesChanged} changed · ${formatBytes(s.dataAdded)} added` +
        (result.warnings.length ? ` · ${result.warnings.length} not backed up` : ''),
      `run-${plan.id}`,
    );
    await this.#applyRetention(plan, trigger, hold);
    await Promise.all([snapshots.load(), session.refreshInfo()]);
  }

  /** The plan's rules after its backup: forget and prune recorded in the history; a failure notified like a failed backup. */
  async #applyRetention(plan: Plan, trigger: OperationTrigger, within: Hold): Promise<void> {
    const owner = { by: 'plan' as const, plan: { id: plan.id, name: plan.name } };
    const forgetting = await operation.acquire('forget', owner, { within });
    if (!isHold(forgetting)) return;
    const outcome = await applyRetentionAfterBackup({
      rules: plan.retention,
      hostname: settings.hostName,
      paths: planPaths(plan),
      tags: plan.tags,
      op: { repo: session.info?.id ?? '', repoLabel: session.label, trigger, planId: plan.id, planName: plan.name, host: settings.hostName },
      forget: (req) => engine().forget({ ...req, owner }),
    }).finally(() => forgetting.release());
    if (!outcome) return;
    for (const r of outcome.records) await history.record(r);
    const e = outcome.error;
    if (e && e.code !== 'ABORTED')
      void showNotification(`Removing old snapshots failed: ${plan.name}`, `${e.title}. ${e.detail ?? e.text}`.trim(), `retention-${plan.id}`);
  }

  /** A run that could not start (no access to a folder): a failure like any other. */
  async #failedBeforeStart(plan: Plan, trigger: OperationTrigger, error: Described): Promise<void> {
    const now = Date.now();
    const op = { repo: session.info?.id ?? '', repoLabel: session.label, trigger, planId: plan.id, planName: plan.name, host: settings.hostName, start: now };
    await history.record(failedRecord(op, 'backup', now, error));
    await plans.started(plan.id, now);
    await plans.finished(plan.id, { start: now, end: now, result: 'failure', error: error.title });
    void showNotification(`Backup failed: ${plan.name}`, error.text, `run-${plan.id}`);
  }
}

export const runner = new PlanRunner();
