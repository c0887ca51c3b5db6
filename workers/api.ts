// The engine worker's API, as the page sees it through `Comlink.wrap<EngineApi>(worker)`.
// Types only (plus one type guard): the page imports nothing else from workers/ except the
// small page-side helpers in ./client/. Passwords, master keys, S3 secrets and file contents
// go *into* the worker and never come back out.
//
// Conventions
// - Every method rejects with an `EngineError` (a plain object, not an Error: comlink would
//   strip an Error's `code`). Switch on `code`; show `message` only as a detail.
// - Callbacks (`onProgress`) must be wrapped in `Comlink.proxy(fn)`; they are throttled to a
//   few calls per second.
// - One repository is open per engine worker; one long operation (backup, restore into a
//   folder, saving to a file, check, forget) holds the engine's operation slot at a time:
//   `operation()` tells which, since when and for whom; a second one rejects with `BUSY` (its
//   detail names the running one) and `cancel()` stops the running one (it then rejects with
//   code `ABORTED`). Streamed downloads run beside it.

import type { ProgressSnapshot } from '../core/progress';
import type { RepositoryToolsApi, RestorePatterns } from './tools-api';
import type {
  DownloadKind,
  DownloadTicket,
  EngineErrorCode,
  OpenOptions,
  OperationKind,
  OperationOwner,
  RepoInfo,
  RepoLocation,
  RestoreResultView,
  SnapshotSummaryView,
  SnapshotView,
} from './api-shared';
import type { Sha256Choice } from './sha256-choice';
import type { AesChoice } from './aes-choice';

export type { ProgressSnapshot };
export type { DeviceInfo } from '../core/presign/handler';
export type * from './tools-api';
export type * from './api-shared';

// ---- repositories ---------------------------------------------------------------------------

/** The background fill of a bucket repository's offline cache (EngineApi.prepareOffline). */
export interface OfflineCacheProgress {
  /** 'index': reading the index files; 'trees': fetching the folder listings; 'done': all cached. */
  phase: 'index' | 'trees' | 'done';
  indexFiles: number;
  indexTotal: number;
  /** Snapshots in the repository, and those whose folders are all cached. */
  snapshots: number;
  snapshotsDone: number;
  /** Folder listings (trees) fetched or found cached by this fill so far. */
  folders: number;
}

// ---- browsing -------------------------------------------------------------------------------

export interface NodeView {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'dev' | 'chardev' | 'fifo' | 'socket' | 'irregular';
  size: number;
  /** RFC 3339. */
  mtime: string;
  /** Go os.FileMode bits, when recorded. */
  mode?: number;
  /** Components from the snapshot root, this node's name last. */
  path: string[];
  linkTarget?: string;
}

export interface SearchHit {
  snapshotId: string;
  node: NodeView;
}

export interface VersionView {
  snapshotId: string;
  time: string;
  node: NodeView;
}

export interface DiffEntry {
  path: string[];
  change: 'added' | 'removed' | 'modified';
  type: NodeView['type'];
}

// ---- backup ---------------------------------------------------------------------------------

export type BackupSource =
  /** A folder picked with showDirectoryPicker (read permission granted by the page). */
  | { kind: 'handle'; handle: FileSystemDirectoryHandle }
  /**
   * Several such folders into one snapshot (a plan's), recorded as "/<name>" each; two of the
   * same name are refused (USAGE).
   */
  | { kind: 'handles'; handles: FileSystemDirectoryHandle[] }
  /**
   * `<input webkitdirectory>` files. Structured cloning drops `webkitRelativePath`, so the page
   * passes each file's `webkitRelativePath` in `relativePaths` (same order), e.g. "Photos/a.jpg".
   */
  | { kind: 'files'; files: File[]; relativePaths: string[] }
  /**
   * The same list, its Files kept by the page and served to the file-saver workers as they
   * read them (workers/source/file-server.ts): only paths travel here, sizes and times follow
   * over `server` while the backup runs, and files a backup finds unchanged never leave the
   * page. `server` must be transferred.
   */
  | { kind: 'served-files'; relativePaths: string[]; server: MessagePort };

// ---- the operation slot -------------------------------------------------------------------

/** The operation holding the slot, as the page and other tabs are told of it. */
export interface OperationView {
  kind: OperationKind;
  owner: OperationOwner;
  /** When it started (ms since the epoch). */
  since: number;
  /** Its last progress report, if it made one. */
  progress?: ProgressSnapshot;
  /** cancel() was called; it ends soon. */
  cancelling: boolean;
}

export interface BackupRequest {
  source: BackupSource;
  /** For the operation slot (default: the user). */
  owner?: OperationOwner;
  /**
   * The snapshot's host name (restic's --host); the parent is the newest snapshot of this host
   * and these paths. Default: an ID of this browser profile ("browser-1a2b3c4d").
   */
  hostname?: string;
  tags?: string[];
  /** restic exclude patterns (`*.tmp`, `node_modules`, `/Photos/raw/**`). */
  excludes?: string[];
  /** Read every file even when the parent snapshot says it is unchanged. */
  force?: boolean;
}

export interface BackupWarningView {
  path: string;
  code: EngineErrorCode;
  message: string;
}

export interface BackupResultView {
  snapshotId: string;
  parent?: string;
  summary: SnapshotSummaryView;
  /** Files whose contents were read (new or changed); unchanged files are skipped. */
  filesRead: number;
  warnings: BackupWarningView[];
  durationMs: number;
}

// ---- the dashboard --------------------------------------------------------------------------

export interface RepoStats {
  snapshots: number;
  packs: number;
  blobs: number;
  /** Bytes of the stored blobs (compressed, encrypted), each counted once: `restic stats --mode raw-data`. */
  storedBytes: number;
  /** The same blobs before compression. */
  uncompressedBytes: number;
}

// ---- diagnostics (tests, benchmarks) --------------------------------------------------------

export interface EngineStats {
  /** File-saver workers a backup uses (navigator.hardwareConcurrency, capped). */
  saverWorkers: number;
  /** Blobs in the in-memory index. */
  indexBlobs: number;
  /** Tree blobs / metadata objects served from the offline cache vs. fetched, since open. */
  cacheHits: number;
  cacheMisses: number;
  /** Last backup: files read by the savers and wall time. */
  lastBackup?: { filesRead: number; durationMs: number; bytes: number };
}

// ---- test and benchmark knobs ----------------------------------------------------------------

/**
 * Pool and pack settings for the next backups. Each key given replaces the current value;
 * `undefined` restores the engine's own choice. Unset, the engine decides as it does in the app.
 */
export interface Tuning {
  /** File-saver workers (default: navigator.hardwareConcurrency, capped). */
  workers?: number;
  /** Files each saver works on at once. */
  jobsPerWorker?: number;
  /** Pack uploads each saver runs at once. */
  uploadsPerWorker?: number;
  /** Pack buffers each saver holds at most. */
  packBuffersPerWorker?: number;
  /** Target pack size in bytes. */
  packSize?: number;
  /** A SHA-256 implementation instead of the faster one timed in this browser. */
  sha256?: Sha256Choice;
  /** An AES implementation instead of the faster one timed in this browser. */
  aes?: AesChoice;
}

/**
 * What the engine worker adds to EngineApi in the builds for the engine harness and the
 * benchmarks only (vite define `__CAIRN_TUNING__`); the app's build has no such method.
 */
export interface TuningApi {
  tune(t: Tuning): Promise<void>;
}

export interface EngineApi extends RepositoryToolsApi {
  createRepository(loc: RepoLocation, password: string, opts?: OpenOptions): Promise<RepoInfo>;
  /** Wrong password rejects with `WRONG_PASSWORD`; no repository there with `NOT_A_REPOSITORY`. */
  openRepository(loc: RepoLocation, password: string, opts?: OpenOptions): Promise<RepoInfo>;
  /**
   * Starts the password's key derivation for `loc` (if its offline cache knows the key file
   * that last opened it) so that an `openRepository` right after takes the result; the page
   * calls it while it decrypts the bucket's keys. `loc` needs no keys. No answer.
   */
  prepareUnlock(loc: RepoLocation, password: string): Promise<void>;
  /** The page shows the unlock form for `loc` (no keys needed): the key derivation's workers get ready. */
  expectUnlock(loc: RepoLocation): Promise<void>;
  /** Opens with a remembered master key (no password); `NOT_REMEMBERED` if there is none. */
  unlockRemembered(loc: RepoLocation, opts?: { offline?: boolean }): Promise<RepoInfo>;
  /** Drops the remembered key (and S3 keys) for a location. */
  forgetRemembered(loc: RepoLocation): Promise<void>;
  /** Deletes this location's offline cache (and remembered key). */
  clearCache(loc: RepoLocation): Promise<void>;
  closeRepository(): Promise<void>;
  repositoryInfo(): Promise<RepoInfo | undefined>;
  /**
   * Bucket repositories: fetches every snapshot's trees into the offline cache, in the
   * background (the page's own requests go first), skipping snapshots an earlier fill completed
   * (so a reload resumes it). The page starts it once the snapshot list is shown; the engine
   * also after each backup. `onProgress` hears the current state at once, then each step, and
   * is awaited. Resolves with its last progress ('done') when browsing, search and diff will
   * work offline; a no-op for OPFS and folders. (It does not count what the cache holds: at
   * 100 snapshots of 200 000 files that count alone held IndexedDB for 1.6 s.)
   */
  prepareOffline(onProgress?: (p: OfflineCacheProgress) => unknown): Promise<OfflineCacheProgress>;

  /** Newest last, like `restic snapshots`. From the offline cache when offline. */
  listSnapshots(): Promise<SnapshotView[]>;
  /** Children of `path` (components from the snapshot root; [] = the root), dirs first, then by name. */
  listDir(snapshotId: string, path: string[]): Promise<NodeView[]>;
  /**
   * Keeps this folder's listing, sealed beside the remembered key, as the next start's first
   * picture (workers/cache/last-view.ts). Only for repositories remembered on this device;
   * false when nothing was kept.
   */
  rememberView(snapshotId: string, path: string[]): Promise<boolean>;
  /** File and directory names containing `query` (case-insensitive) across all snapshots. */
  search(query: string, limit?: number): Promise<SearchHit[]>;
  /** The node at `path` in every snapshot that has it, oldest first. */
  versions(path: string[]): Promise<VersionView[]>;
  diff(a: string, b: string): Promise<DiffEntry[]>;

  /** What the repository stores, from its index (offline from the cache too). */
  repositoryStats(): Promise<RepoStats>;
  /**
   * Sizes of snapshots that carry no summary (written by restic before 0.17), counted from
   * their trees like `restic stats --mode restore-size`; by full snapshot ID.
   */
  snapshotSizes(ids: string[]): Promise<Record<string, number>>;

  backup(req: BackupRequest, onProgress?: (p: ProgressSnapshot) => void): Promise<BackupResultView>;
  /** Cancels the operation holding the slot; the repository stays valid. */
  cancel(): Promise<void>;
  /** The operation holding the slot, if any. */
  operation(): Promise<OperationView | undefined>;

  /** Restores `path` of a snapshot (a file or a directory; [] = everything) into a picked folder. */
  restoreToFolder(
    snapshotId: string,
    path: string[],
    target: FileSystemDirectoryHandle,
    onProgress?: (p: ProgressSnapshot) => void,
    patterns?: RestorePatterns,
  ): Promise<RestoreResultView>;
  /** Writes one file (kind 'file') or a ZIP of a directory (kind 'zip') to a showSaveFilePicker handle. */
  saveToFile(
    snapshotId: string,
    path: string[],
    kind: DownloadKind,
    target: FileSystemFileHandle,
    onProgress?: (p: ProgressSnapshot) => void,
  ): Promise<RestoreResultView>;
  /** Prepares a streamed download (see DownloadTicket). */
  download(snapshotId: string, path: string[], kind: DownloadKind, onProgress?: (p: ProgressSnapshot) => void): Promise<DownloadTicket>;
  /**
   * Resolves when a download's stream has ended: which files made it and which failed (a ZIP
   * leaves failed files out and lists them in a `CAIRN-ERRORS.txt` entry).
   */
  downloadResult(id: string): Promise<RestoreResultView>;

  stats(): Promise<EngineStats>;
}
