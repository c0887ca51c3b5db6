// Backup plans: which folders go into which repository, with which tags and exclude patterns,
// when (./schedule.ts) and what to keep (./retention.ts). A plan is kept on this device
// (./db.ts); the functions here only reason about one, so they are tested without a browser.

import type { OperationResult } from './history';
import type { RetentionRules } from './retention';
import { nextRun, type Schedule } from './schedule';

/**
 * A folder a plan backs up: its handle where the browser can keep one (File System Access);
 * elsewhere (Firefox, Safari) only its name, and each run asks the user to choose it.
 */
export interface PlanFolder {
  name: string;
  handle?: FileSystemDirectoryHandle;
}

export interface PlanRun {
  start: number;
  end: number;
  result: OperationResult;
  snapshotId?: string;
  /** Failure: the error's title (the history entry has the rest). */
  error?: string;
}

export interface Plan {
  id: string;
  name: string;
  /** The remembered repository (RememberedRepo.id) the plan backs up into. */
  repo: string;
  folders: PlanFolder[];
  tags: string[];
  excludes: string[];
  schedule: Schedule;
  retention: RetentionRules;
  paused: boolean;
  createdAt: number;
  /** The next run is counted from here: the last run's start, or when the schedule was set, or a missed run skipped. */
  since: number;
  lastRun?: PlanRun;
  /** Start of the last run that saved a snapshot. */
  lastSuccess?: number;
}

export type PlanDraft = Pick<Plan, 'name' | 'folders' | 'tags' | 'excludes' | 'schedule' | 'retention'>;

export interface PlanStatus {
  /** When it runs next (undefined: manual or paused). */
  next?: number;
  /** Its time has come (now ≥ next). */
  due: boolean;
  /** Due for longer than the overdue limit: by this many ms. */
  overdueBy?: number;
  /** The last run failed. */
  failing: boolean;
}

export function planStatus(p: Plan, now: number, tz: string, overdueAfterMs: number): PlanStatus {
  const failing = p.lastRun?.result === 'failure';
  if (p.paused) return { due: false, failing };
  const next = nextRun(p.schedule, p.since, tz);
  if (next === undefined) return { due: false, failing };
  const late = now - next;
  return { next, due: late >= 0, overdueBy: late > overdueAfterMs ? late : undefined, failing };
}

/** A new plan's problems, by field. */
export function planProblems(d: PlanDraft, problems: { schedule?: string; retention?: string }): Record<string, string> {
  const errs: Record<string, string> = {};
  if (!d.name.trim()) errs['name'] = 'Give the plan a name.';
  if (d.folders.length === 0) errs['folders'] = 'Add at least one folder.';
  if (d.folders.length > 1 && d.folders.some((f) => !f.handle)) errs['folders'] = 'This browser picks a plan’s folder at each run: one folder per plan.';
  const names = d.folders.map((f) => f.name);
  if (new Set(names).size !== names.length)
    errs['folders'] = 'Two folders have the same name. A snapshot records folders by name, so back them up in separate plans.';
  if (problems.schedule) errs['schedule'] = problems.schedule;
  if (problems.retention) errs['retention'] = problems.retention;
  return errs;
}

/** The snapshot paths a plan's backups record (restic's `paths`: one per folder, sorted). */
export function planPaths(p: Pick<Plan, 'folders'>): string[] {
  return p.folders.map((f) => '/' + f.name).sort();
}
