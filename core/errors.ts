// Errors as data: a stable `code` callers switch on, the operation that failed, the cause,
// and whether retrying can help. Human-facing text for the app lives in web/; the CLI prints
// `code: message`.

export type ErrorCode =
  // repository / crypto
  | 'WRONG_PASSWORD' // no key file opens with the given password
  | 'NO_KEY' // the repository has no key files at all
  | 'BAD_KEY_FILE' // a key file is truncated, not JSON, or has bad KDF parameters
  | 'MAC_MISMATCH' // ciphertext failed authentication (corrupt or tampered)
  | 'BAD_CONFIG' // config unreadable or of an unknown version
  | 'NOT_A_REPOSITORY' // no config file where a repository should be
  | 'REPO_EXISTS' // init over an existing repository
  | 'BAD_PACK' // a pack's header or size is invalid
  | 'BAD_INDEX' // an index file is malformed
  | 'BAD_SNAPSHOT' // snapshot JSON is malformed
  | 'BAD_TREE' // a tree blob is malformed
  | 'INVALID_NAME' // a tree names a node so that it would not be one path component inside its folder (core/data/node-name.ts)
  | 'BLOB_NOT_FOUND' // a blob is referenced but no index lists it
  | 'HASH_MISMATCH' // content does not hash to its ID
  | 'DECOMPRESS_FAILED'
  | 'SNAPSHOT_NOT_FOUND'
  | 'AMBIGUOUS_ID'
  | 'LOCKED' // a conflicting lock is held
  | 'BAD_POLICY' // a retention policy option is invalid, or the policy is empty (core/forget)
  | 'FORGET_REFUSED' // the policy would remove every snapshot of a group (restic 0.18 refuses)
  | 'LAST_KEY' // removing the repository's only key file would lock everyone out
  | 'KEY_IN_USE' // removing the key this session opened with, without saying so explicitly
  | 'NOT_PERMITTED' // this device's role at its presign endpoint does not allow the operation (append-only: no forget, prune or key changes)
  // backends
  | 'NOT_FOUND' // the object does not exist
  | 'ALREADY_EXISTS'
  | 'BACKEND_IO' // generic I/O failure (possibly transient)
  | 'NETWORK' // the request did not reach the server or the response broke off
  | 'ACCESS_DENIED' // 403: wrong secret, expired or tampered URL, missing permission
  | 'NO_SUCH_BUCKET'
  | 'CORS_BLOCKED'
  | 'QUOTA_EXCEEDED'
  | 'NAME_NOT_ALLOWED' // the target's file system refuses a file or folder name (a browser's, say)
  | 'ABORTED'
  // source and CLI
  | 'SOURCE_READ' // a source file could not be read
  | 'SOURCE_CHANGED' // a source file changed while it was read
  | 'SNAPSHOT_EMPTY' // nothing of the sources could be saved, so no snapshot (restic: "snapshot is empty")
  | 'SOURCE_COMMAND_FAILED' // the command whose output `backup --stdin-from-command` saves exited non-zero: no snapshot
  | 'USAGE' // wrong command-line usage
  | 'NO_PASSWORD'
  | 'INTERNAL';

export interface CairnErrorOptions {
  op?: string;
  cause?: unknown;
  retryable?: boolean;
  /** Extra structured facts (pack ID, blob ID, path …) for callers and messages. */
  detail?: Record<string, unknown>;
}

export class CairnError extends Error {
  readonly code: ErrorCode;
  readonly op: string | undefined;
  readonly retryable: boolean;
  readonly detail: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: CairnErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CairnError';
    this.code = code;
    this.op = opts.op;
    this.retryable = opts.retryable ?? false;
    this.detail = opts.detail ?? {};
  }
}

export function isCairnError(e: unknown, code?: ErrorCode): e is CairnError {
  return e instanceof CairnError && (code === undefined || e.code === code);
}

/** True for "the object is not there" — restic's Backend.IsNotExist. */
export function isNotFound(e: unknown): boolean {
  return isCairnError(e, 'NOT_FOUND');
}

export function abortError(signal?: AbortSignal): CairnError {
  return new CairnError('ABORTED', 'operation cancelled', { cause: signal?.reason });
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

/** Errors crossing a worker boundary lose their class; this rebuilds them. */
export interface SerializedError {
  code: ErrorCode;
  message: string;
  op?: string;
  retryable?: boolean;
  detail?: Record<string, unknown>;
}

export function serializeError(e: unknown): SerializedError {
  if (e instanceof CairnError) {
    return { code: e.code, message: e.message, op: e.op, retryable: e.retryable, detail: e.detail };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'INTERNAL', message };
}

export function deserializeError(s: SerializedError): CairnError {
  return new CairnError(s.code, s.message, { op: s.op, retryable: s.retryable, detail: s.detail });
}
