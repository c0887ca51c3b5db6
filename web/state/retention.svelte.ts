// The Retention page of the open repository: its rules (restic's forget options, kept with the
// repository's remembered entry), a live preview of what they keep (with restic's reasons) and
// remove — and what prune would free, when the engine has prune — then "Forget" with progress
// and cancel. Also removing one snapshot from its page. Every run is recorded in the history
// (forget, and prune when it ran, or the failure), as the plans' runs are.

import type { ForgetPreview, ForgetRequest, ForgetResultView, ProgressSnapshot } from '../../workers/api';
import { policyString, parsePolicy } from '../../core/forget';
import { engine, progressListener } from '../lib/engine';
import { failedRecord, forgetRecords, type OperationContext } from '../lib/history';
import { describeError, type Described } from '../lib/messages';
import { checkForm, emptyForm, fromPolicyInput, toPolicyInput, type FormCheck, type PolicyForm } from '../lib/policy-form';
import { history } from './history.svelte';
import { isHold, operation, testGate } from './operation.svelte';
import { Loadable } from './loadable.svelte';
import { remembered } from './remembered.svelte';
import { session } from './session.svelte';
import { settings } from './settings.svelte';
import { snapshots } from './snapshots.svelte';

class Retention {
  #form = $state<PolicyForm>(emptyForm());
  #thisHostOnly = $state(true);
  #loadedFor = '';
  readonly #preview = new Loadable<ForgetPreview>();
  #hasPrune = $state(false);
  #running = $state(false);
  #cancelling = $state(false);
  #progress = $state.raw<ProgressSnapshot | undefined>();
  #result = $state.raw<ForgetResultView | undefined>();
  #error = $state.raw<Described | undefined>();
  #saved = $state(false);

  /** The form's fields (bind to them). */
  get form(): PolicyForm {
    return this.#form;
  }
  get thisHostOnly(): boolean {
    return this.#thisHostOnly;
  }
  set thisHostOnly(v: boolean) {
    this.#thisHostOnly = v;
  }
  get check(): FormCheck {
    return checkForm(this.#form);
  }
  get preview(): ForgetPreview | undefined {
    return this.#preview.value;
  }
  get previewError(): Described | undefined {
    return this.#preview.error;
  }
  get previewing(): boolean {
    return this.#preview.loading;
  }
  get hasPrune(): boolean {
    return this.#hasPrune;
  }
  get running(): boolean {
    return this.#running;
  }
  get cancelling(): boolean {
    return this.#cancelling;
  }
  get progress(): ProgressSnapshot | undefined {
    return this.#progress;
  }
  get result(): ForgetResultView | undefined {
    return this.#result;
  }
  get error(): Described | undefined {
    return this.#error;
  }
  /** The rules on show are the ones kept with the repository. */
  get saved(): boolean {
    return this.#saved;
  }

  /** Fills the form from the open repository's remembered rules (once per repository). */
  async open(): Promise<void> {
    const entry = session.entry;
    const key = entry?.id ?? session.info?.id ?? '';
    if (key === this.#loadedFor) return;
    this.#loadedFor = key;
    const kept = entry?.retention;
    this.#form = fromPolicyInput(kept?.policy);
    this.#thisHostOnly = kept?.thisHostOnly ?? true;
    this.#saved = !!kept;
    this.#preview.clear();
    this.#result = undefined;
    this.#error = undefined;
    this.#hasPrune = await engine()
      .hasPrune()
      .catch(() => false);
  }

  edited(): void {
    this.#saved = false;
  }

  async refreshPreview(): Promise<void> {
    const c = this.check;
    if (!c.ok) {
      this.#preview.clear();
      return;
    }
    const policy = toPolicyInput(this.#form);
    await this.#preview.load(() => engine().previewForget(policy, { thisHostOnly: this.#thisHostOnly, host: settings.hostName, withPrune: this.#hasPrune }), {
      keep: true,
    });
  }

  /** Keeps the rules with the repository's remembered entry; false when it is not remembered. */
  async save(): Promise<boolean> {
    const entry = session.entry && remembered.byId(session.entry.id);
    if (!entry) return false;
    await remembered.save({ ...entry, retention: { policy: toPolicyInput(this.#form), thisHostOnly: this.#thisHostOnly } });
    this.#saved = true;
    return true;
  }

  /** Forgets what the rules remove (and frees the space when `prune` and the engine can). */
  async apply(prune: boolean): Promise<void> {
    if (!this.check.ok) return;
    await this.save();
    const policy = toPolicyInput(this.#form);
    await this.#run({ policy, thisHostOnly: this.#thisHostOnly, host: settings.hostName, prune }, policyString(parsePolicy(policy)));
    await this.refreshPreview();
  }

  /** Removes one snapshot (its page's "Delete snapshot"). */
  deleteSnapshot(id: string, prune: boolean): Promise<boolean> {
    return this.#run({ ids: [id], prune }, `snapshot ${id.slice(0, 8)}`);
  }

  async cancel(): Promise<void> {
    if (!this.#running) return;
    this.#cancelling = true;
    await operation.cancel();
  }

  /** Runs a forget (`subject`: what it removes, for the history) and records it. */
  async #run(req: ForgetRequest, subject: string): Promise<boolean> {
    if (this.#running) return false;
    this.#error = undefined;
    this.#result = undefined;
    const hold = await operation.acquire('forget');
    if (!isHold(hold)) {
      this.#error = hold;
      return false;
    }
    this.#running = true;
    this.#cancelling = false;
    this.#progress = undefined;
    const op: OperationContext = { repo: session.info?.id ?? '', repoLabel: session.label, trigger: 'manual', host: settings.hostName, start: Date.now() };
    try {
      await testGate('forget', hold);
      const r = await engine().forget(
        req,
        progressListener((p) => (this.#progress = p)),
      );
      this.#result = r;
      // The snapshots are gone even when the prune after them failed: both are said.
      this.#error = r.pruneError ? describeError(r.pruneError) : undefined;
      for (const rec of forgetRecords(op, Date.now(), r, subject, this.#error)) await history.record(rec);
      return true;
    } catch (e) {
      this.#error = describeError(e);
      await history.record(failedRecord(op, 'forget', Date.now(), this.#error, subject));
      return false;
    } finally {
      hold.release();
      this.#running = false;
      this.#cancelling = false;
      await Promise.all([snapshots.load(), session.refreshInfo()]);
    }
  }

  dismiss(): void {
    if (this.#running) return;
    this.#result = undefined;
    this.#error = undefined;
  }
}

export const retention = new Retention();
