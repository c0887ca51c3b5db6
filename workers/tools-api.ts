// The engine's repository tools as the page sees them (re-exported by ./api.ts, which EngineApi
// extends with RepositoryToolsApi): check, keys, the recovery sheet, several items restored at
// once, and retention (forget, then prune's "free space"). Types only.
//
// The one value that leaves the engine on purpose: `recoverySheet` returns the master key, after
// the password was typed again, so the page can print it. The page shows it and keeps it in no
// storage; everything else here returns views without secrets.

import type { PolicyInput } from '../core/forget/policy';
import type { ProgressSnapshot } from '../core/progress';
import type { DownloadTicket, EngineError, OperationOwner, RepoInfo, RepoLocation, OpenOptions, RestoreResultView, SnapshotView } from './api-shared';

export type { PolicyInput };

// ---- check ------------------------------------------------------------------------------------

/** How much of the data a check reads: none (structure only), restic's group n of t, or all. */
export type CheckShare = { kind: 'none' } | { kind: 'group'; n: number; t: number } | { kind: 'all' };

export interface CheckProblemView {
  kind: string;
  code: string;
  message: string;
  pack?: string;
  blob?: string;
  /** Non-fatal (a pack no index lists: prune tidies it). */
  hint?: boolean;
}

export interface AffectedPathView {
  snapshot: string;
  /** Components from the snapshot's root. */
  path: string[];
  /** 'tree': a folder's listing is damaged, so everything in it is. */
  kind: 'file' | 'tree';
  blob: string;
}

export interface CheckReportView {
  ok: boolean;
  share: CheckShare;
  errors: number;
  hints: number;
  snapshots: number;
  packs: number;
  /** Packs read (their data) and their bytes, of all packs and bytes the index lists. */
  packsRead: number;
  bytesRead: number;
  bytesTotal: number;
  durationMs: number;
  /** The first problems (at most 200), fatal ones first. */
  problems: CheckProblemView[];
  /** Packs named in a fatal problem. */
  damagedPacks: string[];
  /** Files (or folders) that hold damaged data, newest snapshot first. */
  affected: AffectedPathView[];
  /** Affected paths beyond those listed. */
  affectedMore: number;
}

// ---- keys -------------------------------------------------------------------------------------

export interface KeyView {
  id: string;
  shortId: string;
  hostname: string;
  username: string;
  /** RFC 3339. */
  created: string;
  /** This session unlocked with it. */
  current: boolean;
  kdf: { N: number; r: number; p: number };
}

export interface NewKeyOptions {
  /** restic's --user: whose password it is ("recovery", "alice"); default the engine's. */
  username?: string;
  /** restic's --host; default the engine's host name. */
  hostname?: string;
}

/** What a recovery sheet prints. Holding `masterKey` is holding the repository. */
export interface RecoverySheetView {
  /** restic's `cat masterkey` JSON, indented as restic prints it. */
  masterKey: string;
  /** The same, compact, for the QR code. */
  masterKeyCompact: string;
  repoId: string;
  location: string;
  /** When the sheet was made (RFC 3339). */
  made: string;
}

// ---- restoring several items ------------------------------------------------------------------

export interface SelectionRequest {
  snapshotId: string;
  /** The folder the items are in (components from the snapshot root). */
  dir: string[];
  /** Names in `dir`; empty = the whole folder. */
  names: string[];
}

/** restic's --include / --exclude, matched against paths relative to `dir`. */
export interface RestorePatterns {
  include?: string[];
  exclude?: string[];
}

// ---- retention --------------------------------------------------------------------------------

export interface KeptView {
  snapshot: SnapshotView;
  /** restic's reasons: "last snapshot", "daily snapshot", "oldest monthly snapshot" … */
  reasons: string[];
}

export interface ForgetGroupView {
  /** "host browser-1a2b, paths [/Documents]" */
  label: string;
  keep: KeptView[];
  remove: SnapshotView[];
}

export interface PruneEstimate {
  /** Bytes prune would delete and repack, and what the repository holds after it. */
  bytesFreed: number;
  packsDeleted: number;
  packsRepacked: number;
  bytesRepacked: number;
  bytesAfter: number;
  bytesBefore: number;
}

/**
 * Which snapshots the rules apply to: every group, only this browser's (`host`, default the
 * engine's host name), or one plan's group — restic's `forget --host H --path P… --tag T…` with
 * the default `--group-by host,paths`, narrowed to the one group whose paths are exactly `paths`
 * (restic's --path also takes snapshots holding more paths, which form groups of their own).
 */
export interface RetentionScope {
  thisHostOnly?: boolean;
  /** The host name "this browser's snapshots" means (the app's setting); default the engine's. */
  host?: string;
  /** Only this host/paths group, and only its snapshots carrying every one of `tags`. */
  group?: { host: string; paths: string[]; tags?: string[] };
}

export interface ForgetPreview {
  /** This engine's host name (what "this browser's snapshots" means). */
  host: string;
  groups: ForgetGroupView[];
  /** restic's "Applying Policy: …" and the policy in plain words. */
  policy: string;
  words: string;
  removeCount: number;
  keepCount: number;
  /** Only when the engine has prune and it was asked for (`withPrune`). */
  prune?: PruneEstimate;
  /** Why prune's estimate could not be made (a damaged repository, say), when it could not. */
  pruneProblem?: string;
}

export interface ForgetRequest extends RetentionScope {
  /** For the operation slot (default: the user). */
  owner?: OperationOwner;
  /** The rules to apply (restic's flags as text). */
  policy?: PolicyInput;
  /** Or these snapshots, removed whatever the rules say. */
  ids?: string[];
  /** Then free the space (prune), when the engine has prune. */
  prune?: boolean;
}

export interface ForgetResultView {
  removed: string[];
  /** Snapshot files that could not be removed. */
  failed: string[];
  /** When prune ran (as restic's `forget --prune`: only when snapshots were removed). */
  pruned?: { bytesFreed: number; packsDeleted: number; packsRepacked: number; durationMs: number };
  /** Prune was run and failed (or was cancelled) after the snapshots were removed. */
  pruneError?: EngineError;
  /** Prune was asked for and this engine has none yet: see `hasPrune`. */
  pruneSkipped?: boolean;
  /** The whole run, prune included. */
  durationMs: number;
  /** The removal of the snapshot files alone (lock, listing, decision, removal). */
  forgetMs: number;
}

export interface RepositoryToolsApi {
  /** restic's check, reading `share` of the data; exclusive lock; damage named by pack, blob and file. */
  checkRepository(share: CheckShare, onProgress?: (p: ProgressSnapshot) => void): Promise<CheckReportView>;

  listKeys(): Promise<KeyView[]>;
  /** A new key file for `password` (restic accepts it: `key list`, and opening with it). */
  addKey(password: string, opts?: NewKeyOptions): Promise<KeyView>;
  /** `key passwd`: the current key replaced by one for `newPassword`; `current` must open it. */
  changePassword(current: string, newPassword: string): Promise<KeyView>;
  /** Never the last key; the one in use only with `allowCurrent`. */
  removeKey(id: string, opts?: { allowCurrent?: boolean }): Promise<void>;
  /** The master key for printing, once the password typed again opens this repository. */
  recoverySheet(password: string): Promise<RecoverySheetView>;
  /**
   * Opens the repository at `loc` with a master key (restic's `cat masterkey` JSON, from a
   * recovery sheet), writes a key file for `newPassword` and keeps the repository open with it.
   */
  recoverAccess(loc: RepoLocation, masterKey: string, newPassword: string, opts?: OpenOptions): Promise<RepoInfo>;

  /** One ZIP of the ticked items of a folder (each at the ZIP's top level). */
  downloadSelection(req: SelectionRequest, onProgress?: (p: ProgressSnapshot) => void): Promise<DownloadTicket>;
  /** The ticked items (or the whole folder) into a picked folder, filtered by restic patterns. */
  restoreSelection(
    req: SelectionRequest,
    target: FileSystemDirectoryHandle,
    patterns?: RestorePatterns,
    onProgress?: (p: ProgressSnapshot) => void,
  ): Promise<RestoreResultView>;

  /** What the rules would keep and remove (and, with `withPrune`, what prune would free). */
  previewForget(policy: PolicyInput, opts?: RetentionScope & { withPrune?: boolean }): Promise<ForgetPreview>;
  /** Removes snapshots by rules or IDs (exclusive lock), then frees space when asked and possible. */
  forget(req: ForgetRequest, onProgress?: (p: ProgressSnapshot) => void): Promise<ForgetResultView>;
  /** Whether this engine can free space (prune) after a forget. */
  hasPrune(): Promise<boolean>;
}
