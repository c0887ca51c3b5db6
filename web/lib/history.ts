// What happened: one record per operation on a repository (backup, forget, prune, check,
// restore), kept on this device (./db.ts) and shown newest first. The fields follow restic's
// own reports (the backup summary, `check`'s verdict) so an exported history reads like a
// restic log. No secrets and no file contents: names of files that failed, at most.

import type { BackupResultView, CheckReportView, ForgetResultView, RestoreResultView } from '../../workers/api';
import type { Described } from './messages';

export type OperationKind = 'backup' | 'forget' | 'prune' | 'check' | 'restore';
/** success; warning: done, with files left out; failure: nothing (new) was saved; cancelled. */
export type OperationResult = 'success' | 'warning' | 'failure' | 'cancelled';
export type OperationTrigger = 'manual' | 'schedule' | 'missed';

export interface HistoryRecord {
  id: string;
  /** The repository's own ID (its config), so two ways to the same repository share a history. */
  repo: string;
  repoLabel: string;
  kind: OperationKind;
  trigger: OperationTrigger;
  planId?: string;
  planName?: string;
  /** The snapshot host name the operation used (backups). */
  host?: string;
  /** Epoch ms. */
  start: number;
  end: number;
  durationMs: number;
  result: OperationResult;
  /** Files processed (backup) or restored (restore), and their bytes. */
  files?: number;
  bytes?: number;
  /** Backup: data added to the repository before and after compression (restic's data_added, data_added_packed). */
  dataAdded?: number;
  dataAddedPacked?: number;
  snapshotId?: string;
  /** Forget: snapshots removed. */
  snapshotsRemoved?: number;
  /** Prune: bytes the repository no longer stores (deleted less rewritten). */
  bytesFreed?: number;
  /** What a restore restored ("snapshot 1a2b3c4d: /Documents"). */
  subject?: string;
  /** Items that failed while the operation went on (files not read, not restored). */
  errors: { path?: string; code: string; message: string }[];
  /** Why the operation failed, when it did. */
  error?: { code: string; title: string; text: string; detail?: string };
}

export interface OperationContext {
  repo: string;
  repoLabel: string;
  trigger: OperationTrigger;
  planId?: string;
  planName?: string;
  host?: string;
  start: number;
}

function base(ctx: OperationContext, kind: OperationKind, end: number): Omit<HistoryRecord, 'result' | 'errors'> {
  return { id: crypto.randomUUID(), kind, ...ctx, end, durationMs: Math.max(0, end - ctx.start) };
}

export function backupRecord(ctx: OperationContext, end: number, r: BackupResultView): HistoryRecord {
  return {
    ...base(ctx, 'backup', end),
    result: r.warnings.length ? 'warning' : 'success',
    files: r.summary.totalFilesProcessed,
    bytes: r.summary.totalBytesProcessed,
    dataAdded: r.summary.dataAdded,
    dataAddedPacked: r.summary.dataAddedPacked,
    snapshotId: r.snapshotId,
    errors: r.warnings.map((w) => ({ path: w.path, code: w.code, message: w.message })),
  };
}

export function restoreRecord(ctx: OperationContext, end: number, subject: string, r: RestoreResultView): HistoryRecord {
  return {
    ...base(ctx, 'restore', end),
    result: r.errors.length ? 'warning' : 'success',
    files: r.files,
    bytes: r.bytes,
    subject,
    errors: r.errors.map((e) => ({ path: e.path, code: e.code, message: e.message })),
  };
}

/** Any other finished operation (check, forget, prune): what it reports, in the record's fields. */
export function finishedRecord(
  ctx: OperationContext,
  kind: OperationKind,
  end: number,
  fields: Pick<HistoryRecord, 'result'> &
    Partial<Pick<HistoryRecord, 'files' | 'bytes' | 'snapshotId' | 'subject' | 'errors' | 'snapshotsRemoved' | 'bytesFreed'>>,
): HistoryRecord {
  return { ...base(ctx, kind, end), errors: [], ...fields };
}

export function failedRecord(ctx: OperationContext, kind: OperationKind, end: number, error: Described, subject?: string): HistoryRecord {
  return {
    ...base(ctx, kind, end),
    result: error.code === 'ABORTED' ? 'cancelled' : 'failure',
    subject,
    errors: [],
    error: { code: error.code, title: error.title, text: error.text, detail: error.detail },
  };
}

/**
 * A forget run (../../workers/tools-api.ts `forget`) as history: the forget from `ctx.start` for
 * the removal's own time, then — when it ran — the prune that followed it under the same lock,
 * or its failure (`pruneError`, described by the caller) with the removal still recorded.
 */
export function forgetRecords(ctx: OperationContext, end: number, r: ForgetResultView, subject?: string, pruneError?: Described): HistoryRecord[] {
  const forgetEnd = Math.min(end, ctx.start + r.forgetMs);
  const forget = finishedRecord(ctx, 'forget', forgetEnd, {
    result: r.failed.length ? 'warning' : 'success',
    snapshotsRemoved: r.removed.length,
    subject,
    errors: r.failed.map((id) => ({ code: 'REMOVE_FAILED', message: `snapshot ${id.slice(0, 8)} could not be removed` })),
  });
  const pruneCtx = { ...ctx, start: forgetEnd };
  if (r.pruned) {
    const p = r.pruned;
    const prune = finishedRecord(pruneCtx, 'prune', Math.min(end, forgetEnd + p.durationMs), {
      result: 'success',
      bytesFreed: p.bytesFreed,
      subject: `${p.packsDeleted} data files deleted, ${p.packsRepacked} repacked`,
    });
    return [forget, prune];
  }
  return pruneError ? [forget, failedRecord(pruneCtx, 'prune', end, pruneError)] : [forget];
}

/** How much of the data a check read, in restic's flags. */
function shareFlag(share: CheckReportView['share']): string {
  if (share.kind === 'all') return '--read-data';
  return share.kind === 'group' ? `--read-data-subset ${share.n}/${share.t}` : 'structure only';
}

/**
 * A finished check: success without errors, failure with its fatal problems (at most 50) in
 * `errors` — by kind, code and pack/blob ID only, as the kept check result (./health.ts): check's
 * messages name the damaged files, and the app keeps no file name of a snapshot in clear.
 * `files` and `bytes` are the data files read and their bytes.
 */
export function checkHistoryRecord(ctx: OperationContext, end: number, r: CheckReportView): HistoryRecord {
  const fatal = r.problems.filter((p) => !p.hint).slice(0, 50);
  const where = (p: CheckReportView['problems'][number]) =>
    [p.kind, p.pack && `pack ${p.pack.slice(0, 16)}`, p.blob && `blob ${p.blob.slice(0, 16)}`].filter(Boolean).join(', ');
  return finishedRecord(ctx, 'check', end, {
    result: r.ok ? 'success' : 'failure',
    files: r.packsRead,
    bytes: r.bytesRead,
    subject: shareFlag(r.share),
    errors: fatal.map((p) => ({ code: p.code, message: where(p) })),
  });
}

export interface HistoryFilter {
  planId?: string;
  kind?: OperationKind;
}

/** Newest first, narrowed to a plan and/or a kind. */
export function filterHistory(records: readonly HistoryRecord[], f: HistoryFilter): HistoryRecord[] {
  return records.filter((r) => (!f.planId || r.planId === f.planId) && (!f.kind || r.kind === f.kind)).sort((a, b) => b.start - a.start);
}

/** The newest record of a kind (the last check, say), or undefined. */
export function latest(records: readonly HistoryRecord[], kind: OperationKind, planId?: string): HistoryRecord | undefined {
  let best: HistoryRecord | undefined;
  for (const r of records) if (r.kind === kind && (!planId || r.planId === planId) && (!best || r.start > best.start)) best = r;
  return best;
}

/**
 * The history as a JSON document for export: restic's message_type and field names where
 * restic has them (summary numbers in snake case), times in RFC 3339.
 */
export function historyJson(records: readonly HistoryRecord[], exportedAt: number): string {
  const entries = records.map((r) => ({
    message_type: 'operation',
    command: r.kind,
    repository: r.repo,
    repository_label: r.repoLabel,
    trigger: r.trigger,
    plan: r.planName,
    plan_id: r.planId,
    host: r.host,
    start: new Date(r.start).toISOString(),
    end: new Date(r.end).toISOString(),
    duration: r.durationMs / 1000,
    result: r.result,
    exit_code: r.result === 'success' ? 0 : r.result === 'warning' ? 3 : r.result === 'cancelled' ? 130 : 1,
    snapshot_id: r.snapshotId,
    subject: r.subject,
    total_files_processed: r.kind === 'backup' ? r.files : undefined,
    total_bytes_processed: r.kind === 'backup' ? r.bytes : undefined,
    files_restored: r.kind === 'restore' ? r.files : undefined,
    bytes_restored: r.kind === 'restore' ? r.bytes : undefined,
    data_added: r.dataAdded,
    data_added_packed: r.dataAddedPacked,
    snapshots_removed: r.snapshotsRemoved,
    bytes_freed: r.bytesFreed,
    errors: r.errors,
    error: r.error ? { code: r.error.code, message: r.error.detail ?? r.error.text } : undefined,
  }));
  return JSON.stringify({ exported: new Date(exportedAt).toISOString(), operations: entries }, null, 2) + '\n';
}
