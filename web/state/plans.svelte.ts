// The backup plans kept on this device (../lib/plans.ts says what one is): create, edit,
// pause, delete, and what a run leaves on its plan. Running them is ./runner.svelte.ts's job.

import { deletePlan, listPlans, putPlan, updatePlan } from '../lib/db';
import type { Plan, PlanDraft, PlanRun } from '../lib/plans';

class Plans {
  #items = $state.raw<Plan[]>([]);
  #loaded = $state(false);

  get items(): Plan[] {
    return this.#items;
  }
  get loaded(): boolean {
    return this.#loaded;
  }

  /** The plans of a remembered repository (RememberedRepo.id). */
  forRepo(repoEntryId: string | undefined): Plan[] {
    return repoEntryId ? this.#items.filter((p) => p.repo === repoEntryId) : [];
  }

  byId(id: string | undefined): Plan | undefined {
    return id ? this.#items.find((p) => p.id === id) : undefined;
  }

  async load(): Promise<void> {
    this.#items = await listPlans();
    this.#loaded = true;
  }

  async create(repo: string, draft: PlanDraft, now = Date.now()): Promise<Plan> {
    const plan: Plan = { ...draft, id: crypto.randomUUID(), repo, paused: false, createdAt: now, since: now };
    await putPlan($state.snapshot(plan) as Plan);
    await this.#changed();
    return plan;
  }

  /** Saves an edit; a changed schedule counts from now (a new daily time does not fire for a past day). */
  async edit(id: string, draft: PlanDraft, now = Date.now()): Promise<void> {
    const plain = $state.snapshot(draft) as PlanDraft;
    await updatePlan(id, (p) => ({ ...p, ...plain, since: JSON.stringify(p.schedule) === JSON.stringify(plain.schedule) ? p.since : now }));
    await this.#changed();
  }

  /** Pauses or resumes; a resumed plan counts its next run from now (no burst of missed runs). */
  async setPaused(id: string, paused: boolean, now = Date.now()): Promise<void> {
    await updatePlan(id, (p) => ({ ...p, paused, since: paused ? p.since : now }));
    await this.#changed();
  }

  async remove(id: string): Promise<void> {
    await deletePlan(id);
    await this.#changed();
  }

  /** A run started: the next one counts from its start. */
  async started(id: string, at: number): Promise<void> {
    await updatePlan(id, (p) => ({ ...p, since: at }));
    await this.#changed();
  }

  /** A run ended. */
  async finished(id: string, run: PlanRun): Promise<void> {
    await updatePlan(id, (p) => ({
      ...p,
      lastRun: run,
      lastSuccess: run.result === 'success' || run.result === 'warning' ? run.start : p.lastSuccess,
    }));
    await this.#changed();
  }

  /** A missed run is let go: the next one counts from now. */
  async skip(id: string, now = Date.now()): Promise<void> {
    await updatePlan(id, (p) => ({ ...p, since: now }));
    await this.#changed();
  }

  async #changed(): Promise<void> {
    await this.load();
  }
}

export const plans = new Plans();
