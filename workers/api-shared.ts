// The engine API's types that its two halves share (./api.ts, the engine's own methods, and
// ./tools-api.ts, the repository tools): locations, errors, snapshots, the operation's owner,
// restore results and download tickets. ./api.ts re-exports them, so the page imports them
// from there like every other API type.

import type { ErrorCode } from '../core/errors';
import type { SnapshotSummary } from '../core/data/snapshot-struct';
import type { DeviceInfo } from '../core/presign/handler';

// ---- repositories ---------------------------------------------------------------------------

export type S3Auth =
  | { type: 'keys'; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  /**
   * The user's own presign endpoint (core/backend/s3/PRESIGN-ENDPOINT.md); no bucket secret in
   * the browser. `token` is the device's, sent as `Authorization: Bearer`; it is a secret too
   * (kept like keys: only encrypted, only when asked).
   */
  | { type: 'presign'; url: string; token?: string; headers?: Record<string, string> }
  /** Use the keys remembered inside the engine for this bucket (OpenOptions.remember). */
  | { type: 'remembered' };

export interface S3Location {
  kind: 's3';
  /** Service URL without the bucket, e.g. `https://s3.us-west-004.backblazeb2.com`. */
  endpoint: string;
  region: string;
  bucket: string;
  /** Key prefix inside the bucket ('' = bucket root). */
  prefix: string;
  pathStyle: boolean;
  auth: S3Auth;
}

export type RepoLocation =
  /** The browser's own storage: `navigator.storage.getDirectory()/cairn-repos/<name>`. */
  | { kind: 'opfs'; name: string }
  /** A folder the user picked (readwrite permission already granted by the page). */
  | { kind: 'folder'; handle: FileSystemDirectoryHandle; name: string }
  | S3Location;

export interface RepoInfo {
  /** The repository ID from its config (64 hex). */
  id: string;
  version: number;
  /** Human-readable, e.g. `opfs:photos`, `folder:Backup`, `s3:https://host/bucket/prefix`. */
  location: string;
  /** Stable key the engine files its offline cache under (same for the same location). */
  locationKey: string;
  snapshots: number;
  /** Opened from the offline cache: browsing works, backups and bucket downloads do not. */
  offline: boolean;
  /** The repository's master key is remembered on this device (see OpenOptions.remember). */
  remembered: boolean;
  /**
   * Through a presign endpoint with a device token: who this device is there and its role
   * (`read`, `append-only`, `maintenance`), as the endpoint said when the repository was
   * opened. What the role does not allow rejects with `NOT_PERMITTED` before anything changes.
   * Absent with bucket keys, offline, or when the endpoint does not say.
   */
  device?: DeviceInfo;
}

export interface OpenOptions {
  /** Do not touch the network: unlock and browse from the offline metadata cache only. */
  offline?: boolean;
  /**
   * Keep the master key on this device, wrapped with a non-extractable WebCrypto key held in
   * IndexedDB, so `unlockRemembered` opens the repository without the password. Off unless
   * the user asks. S3 keys are remembered the same way (never in clear).
   */
  remember?: boolean;
}

// ---- errors ---------------------------------------------------------------------------------

export type EngineErrorCode =
  | ErrorCode
  /** A bucket repository is offline and the data (file contents) is not cached. */
  | 'NEEDS_NETWORK'
  /** Call openRepository first. */
  | 'NO_REPOSITORY'
  /** Another long operation is running (one at a time per engine). */
  | 'BUSY'
  /** unlockRemembered: nothing remembered for this location (or it was forgotten). */
  | 'NOT_REMEMBERED'
  /** This browser lacks an API the operation needs (message names it). */
  | 'UNSUPPORTED'
  /**
   * This device's saved data (the engine's IndexedDB) cannot be opened: another tab still runs
   * an older version of the app and holds it at its older database version. Retryable once
   * that tab is closed or reloaded.
   */
  | 'CACHE_BLOCKED';

export interface EngineError {
  code: EngineErrorCode;
  message: string;
  retryable: boolean;
  /** Structured facts (path, pack, blob, HTTP status …), for logs and precise messages. */
  detail?: Record<string, unknown>;
}

// ---- browsing -------------------------------------------------------------------------------

/** The snapshot's summary with its times as RFC 3339 strings (GoTime does not cross threads). */
export type SnapshotSummaryView = Omit<SnapshotSummary, 'backupStart' | 'backupEnd'> & { backupStart: string; backupEnd: string };

export interface SnapshotView {
  id: string;
  shortId: string;
  /** RFC 3339 with the snapshot's own zone offset. */
  time: string;
  hostname: string;
  username: string;
  tags: string[];
  paths: string[];
  /**
   * Total bytes of the files in it: from the summary when it has one (restic 0.17+, Cairn),
   * else counted from its trees by snapshotSizes().
   */
  size?: number;
  summary?: SnapshotSummaryView;
  parent?: string;
  programVersion?: string;
}

// ---- the operation slot -------------------------------------------------------------------

/** The long operations; one holds the engine at a time (workers/engine/operation-slot.ts). */
export type OperationKind = 'backup' | 'restore' | 'save' | 'check' | 'forget';

/** Who started an operation: the user by hand, or a plan (by its schedule or its "Run now"). */
export interface OperationOwner {
  by: 'user' | 'plan';
  plan?: { id: string; name: string };
}

// ---- restore and download -------------------------------------------------------------------

export interface RestoreResultView {
  files: number;
  dirs: number;
  bytes: number;
  /** Files that could not be restored (the others were). */
  errors: { path: string; code: EngineErrorCode; message: string }[];
}

export type DownloadKind = 'file' | 'zip';

/**
 * A prepared streamed download: the service worker serves `url` with a body streamed from the
 * engine worker through `port`. Use `startDownload()` from `workers/client/download.ts`, which
 * hands the port to the service worker and starts the download; do not use this directly.
 */
export interface DownloadTicket {
  id: string;
  url: string;
  filename: string;
  /** Exact byte size for single files; undefined for ZIPs (streamed). */
  size?: number;
  port: MessagePort;
}
