// Every sentence the app says about a failure, keyed by the error's stable code (core/errors.ts
// codes from the engine, plus a few the page itself raises). Components never invent error
// text: they call describeError() and show `title` + `text`.

import type { EngineErrorCode, OperationKind, OperationOwner } from '../../workers/api';

/** Codes raised by the page itself (not the engine). */
export type AppErrorCode =
  | 'NEEDS_NETWORK' // a bucket operation while offline (the engine says so too)
  | 'PERMISSION_DENIED' // the user (or the browser) refused access to a folder
  | 'PICKER_UNSUPPORTED' // no File System Access in this browser
  | 'WORKER_FAILED' // the engine worker could not start (old browser, blocked script)
  | 'SECRET_UNREADABLE' // remembered credentials could not be decrypted
  | 'NOT_A_FOLDER'; // files chosen without their folder (no webkitRelativePath)

export type AnyErrorCode = EngineErrorCode | AppErrorCode;

export interface Described {
  code: string;
  title: string;
  text: string;
  retryable: boolean;
  /** The engine's own message, for a "details" line. */
  detail?: string;
}

const TEXT: Record<AnyErrorCode, [title: string, text: string]> = {
  WRONG_PASSWORD: ['Wrong password', 'That password does not open this repository. Passwords are case-sensitive — check it and try again.'],
  NO_KEY: ['No keys in this repository', 'The repository has no key files, so no password can open it. It may be incomplete or damaged.'],
  BAD_KEY_FILE: ['Damaged key file', 'A key file of this repository is damaged. `restic check` on another computer can tell more.'],
  MAC_MISMATCH: [
    'Data failed its integrity check',
    'Some data in the repository does not match what was written: it is damaged or was changed. Nothing was restored from it.',
  ],
  BAD_CONFIG: ['Unsupported repository', 'The repository’s config cannot be read, or it is a version this app does not understand.'],
  NOT_A_REPOSITORY: ['No repository here', 'There is no repository at this location yet. Choose “Create” to start one, or check the location.'],
  REPO_EXISTS: ['A repository already exists here', 'Open it with its password instead of creating a new one.'],
  BAD_PACK: ['Damaged data file', 'A data file in the repository is damaged. Other files may still restore.'],
  BAD_INDEX: ['Damaged index', 'An index file in the repository is damaged. `restic repair index` can rebuild it.'],
  BAD_SNAPSHOT: ['Damaged snapshot', 'A snapshot file could not be read.'],
  BAD_TREE: ['Damaged folder listing', 'A folder listing inside the snapshot could not be read.'],
  INVALID_NAME: [
    'Unsafe name left out',
    'A folder listing in this snapshot names an entry in a way that could write outside the chosen folder (“..”, a slash, an empty or repeated name). That entry was not restored; everything else was. The snapshot may have been written by someone trying to plant files.',
  ],
  BLOB_NOT_FOUND: ['Missing data', 'The snapshot refers to data the repository does not have. It may be incomplete.'],
  HASH_MISMATCH: ['Data failed its integrity check', 'Restored data did not match its checksum, so it was not written.'],
  DECOMPRESS_FAILED: ['Damaged data', 'Compressed data in the repository could not be unpacked.'],
  SNAPSHOT_NOT_FOUND: ['Snapshot not found', 'That snapshot is not in this repository (it may have been removed).'],
  AMBIGUOUS_ID: ['Ambiguous snapshot ID', 'More than one snapshot starts with those characters. Use more of the ID.'],
  LOCKED: ['Repository in use', 'Another device, tab or restic process is working on this repository right now. Try again when it has finished.'],
  BAD_POLICY: ['Invalid retention policy', 'A keep rule is not valid, or no rule is set (which would remove every snapshot). Check the rules and try again.'],
  FORGET_REFUSED: [
    'Nothing would be kept',
    'The rules would remove every snapshot of a group (a mistyped tag, say), so nothing was removed. Add a rule that keeps something of that group.',
  ],
  LAST_KEY: ['This is the only key', 'A repository needs at least one key: without it no password opens it. Add another password first, then remove this one.'],
  KEY_IN_USE: [
    'This key is in use',
    'This is the key you unlocked the repository with. Removing it means that password no longer opens the repository; confirm to remove it anyway.',
  ],
  NOT_PERMITTED: [
    'Not allowed for this device',
    'This device is connected through a presign endpoint with a role that does not allow this (an append-only device can add backups but not remove or change them). Run it from a device with the maintenance role, or with the bucket’s keys.',
  ],
  NOT_FOUND: ['Not found', 'A file the repository needs is missing.'],
  ALREADY_EXISTS: ['Already exists', 'Something with that name already exists.'],
  BACKEND_IO: ['Storage error', 'Reading or writing the storage failed. Trying again often helps.'],
  NETWORK: ['Cannot reach the storage', 'The request did not get through. Check your connection and the endpoint address, then try again.'],
  ACCESS_DENIED: [
    'Access denied',
    'The storage refused the request: the keys are wrong or lack permission, or a signed link has expired (check this computer’s clock too).',
  ],
  NO_SUCH_BUCKET: ['Bucket not found', 'That bucket does not exist at this endpoint. Check the bucket name, the region and the endpoint.'],
  CORS_BLOCKED: [
    'The bucket did not let this page read its answer',
    'Either the keys are wrong — some servers (Ceph among them) hide a refused key this way — or the bucket’s CORS rules do not allow this page’s address (they must allow GET, PUT, HEAD and DELETE and expose the ETag and Content-Range headers). Check the keys first, then the CORS rules.',
  ],
  NAME_NOT_ALLOWED: [
    'Name not allowed here',
    'The browser does not allow this file or folder name in a folder it writes (a backslash, for one), so it was left out. Download it inside a ZIP instead, or restore it with restic.',
  ],
  QUOTA_EXCEEDED: [
    'Out of storage space',
    'The storage is full — for “This browser”, the browser’s quota for this site. Free some space, or back up to a folder or a bucket instead.',
  ],
  ABORTED: ['Cancelled', 'The operation was cancelled. Nothing that was already saved is lost.'],
  SOURCE_READ: ['A file could not be read', 'The browser could not read a file (it may be open elsewhere or was removed). The rest was backed up.'],
  SOURCE_CHANGED: ['A file changed while being read', 'A file changed during the backup; its older contents were not saved. Back up again to include it.'],
  SNAPSHOT_EMPTY: ['Nothing could be backed up', 'None of the chosen files or folders could be read, so no snapshot was made.'],
  SOURCE_COMMAND_FAILED: ['The backed-up command failed', 'The command whose output was to be backed up exited with an error, so no snapshot was made.'],
  USAGE: ['Invalid request', 'The request was not valid.'],
  NO_PASSWORD: ['Password needed', 'Type the repository password.'],
  INTERNAL: ['Something went wrong', 'An unexpected error happened. Your repository was not changed by it; try again.'],
  NO_REPOSITORY: ['No repository open', 'Open a repository first.'],
  BUSY: ['Busy', 'Another backup, restore, check or removal is still running. Wait for it to finish, or cancel it.'],
  NOT_REMEMBERED: ['Password needed', 'This device does not remember the key of this repository (any more). Type the password.'],
  CACHE_BLOCKED: [
    'Cairn is open in another tab',
    'Another tab still runs an older version of Cairn and holds what this device keeps for it (remembered repositories, the offline copy). Close or reload that tab, then try again.',
  ],
  UNSUPPORTED: [
    'Not supported in this browser',
    'This browser lacks a feature this needs. Chrome, Edge, Firefox and Safari in recent versions all work for backups into this browser or a bucket.',
  ],
  NEEDS_NETWORK: ['Needs the network', 'Restoring from a bucket needs an internet connection. Browsing and searching work offline; connect to restore data.'],
  PERMISSION_DENIED: ['Permission needed', 'The browser did not give access to that folder. Choose it again and allow access.'],
  PICKER_UNSUPPORTED: ['Not supported in this browser', 'This browser cannot open folders for writing. Use “This browser” or a bucket, or try Chrome or Edge.'],
  WORKER_FAILED: ['The backup engine could not start', 'This browser could not start the background worker Cairn needs. Update the browser and reload.'],
  SECRET_UNREADABLE: ['Wrong password', 'That password does not unlock the saved credentials of this repository. Check it and try again.'],
  NOT_A_FOLDER: [
    'Choose a folder, not files',
    'The browser gave these files without the folder they are in, so their places in it are unknown. Choose the folder itself to back it up.',
  ],
};

const KNOWN = new Set(Object.keys(TEXT));

/** The code of any rejection the UI can see: an EngineError, a CairnError, a DOMException … */
export function errorCode(e: unknown): string {
  if (e && typeof e === 'object') {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && KNOWN.has(code)) return code;
    const name = (e as { name?: unknown }).name;
    if (name === 'AbortError') return 'ABORTED';
    if (name === 'NotAllowedError' || name === 'SecurityError') return 'PERMISSION_DENIED';
    if (name === 'QuotaExceededError') return 'QUOTA_EXCEEDED';
    const message = (e as { message?: unknown }).message;
    // An Error that crossed a worker boundary without its fields: "CODE: text".
    if (typeof message === 'string') {
      const m = /^([A-Z_]{3,}):/.exec(message);
      if (m && KNOWN.has(m[1]!)) return m[1]!;
      if (/failed to fetch|networkerror|load failed/i.test(message)) return 'NETWORK';
    }
  }
  return 'INTERNAL';
}

/** Texts for a code whose cause the error's `detail.reason` narrows down. */
const BY_REASON: Record<string, [code: AnyErrorCode, title: string, text: string]> = {
  'offline-cache-full': [
    'QUOTA_EXCEEDED',
    'Out of storage space',
    'The browser gives this site no more storage, so only the snapshots kept so far can be browsed offline; the others still open while online. Free some of this browser’s storage (other sites’ data, or repositories kept in “This browser”) and open the repository again to go on.',
  ],
  'presign-refused': [
    'ACCESS_DENIED',
    'The presign endpoint refused this device',
    'The device token is wrong or was revoked, or this device’s role does not allow the request. Check the token (`cairn presign token list` names the devices and their roles).',
  ],
};

function reasonOf(e: unknown): string | undefined {
  const reason = e && typeof e === 'object' ? (e as { detail?: { reason?: unknown } }).detail?.reason : undefined;
  return typeof reason === 'string' ? reason : undefined;
}

export function describeError(e: unknown): Described {
  const code = errorCode(e) as AnyErrorCode;
  const narrowed = BY_REASON[reasonOf(e) ?? ''];
  const [title, text] = narrowed?.[0] === code ? [narrowed[1], narrowed[2]] : TEXT[code];
  const raw = e && typeof e === 'object' ? (e as { message?: unknown }).message : e;
  const retryable = !!(e && typeof e === 'object' && (e as { retryable?: unknown }).retryable);
  const detail = typeof raw === 'string' && raw && raw !== text ? raw : undefined;
  return { code, title, text, retryable: retryable || code === 'NETWORK' || code === 'LOCKED', detail };
}

export function isCode(e: unknown, code: AnyErrorCode): boolean {
  return errorCode(e) === code;
}

/** A page-raised error in the same shape the engine rejects with. */
export function appError(code: AppErrorCode, message = TEXT[code][1]): { code: AppErrorCode; message: string; retryable: boolean } {
  return { code, message, retryable: code === 'NEEDS_NETWORK' };
}

/** Backup / restore warning lines ("path: what happened"). */
export function describeWarning(w: { path: string; code: string; message: string }): string {
  const known = KNOWN.has(w.code) ? TEXT[w.code as AnyErrorCode][0] : w.message;
  return `${w.path}: ${known}`;
}

/** A failed recovery from a recovery sheet: the key's problems in the sheet's words. */
export function describeRecoveryError(d: Described): Described {
  if (d.code === 'WRONG_PASSWORD')
    return {
      ...d,
      title: 'That master key does not open this repository',
      text: 'Check that the sheet belongs to this repository (its ID is printed on it) and that the key was typed exactly.',
    };
  if (d.code === 'BAD_KEY_FILE')
    return { ...d, title: 'That is not a master key', text: 'Paste the whole master key from the sheet: it starts with {"mac" and ends with }.' };
  return d;
}

/** An operation in words, as a sentence's subject ("A backup of plan “Photos”"). */
export function operationWords(op: { kind: OperationKind; owner: OperationOwner }): string {
  const what = { backup: 'A backup', restore: 'A restore', save: 'Saving a file', check: 'A check', forget: 'Removing snapshots' }[op.kind];
  return op.owner.plan ? `${what} of plan “${op.owner.plan.name}”` : what;
}

/**
 * Why an operation cannot start now: the one running (in this tab or another tab of this
 * browser, on the same repository), since when. `what` is what was refused ("the dropped folder").
 */
export function describeBusy(running: { kind: OperationKind; owner: OperationOwner; since: number; elsewhere: boolean }, what?: string): Described {
  const at = new Date(running.since).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const where = running.elsewhere ? ' in another tab' : '';
  const then = what ? ` Try ${what} again when it has ended.` : running.elsewhere ? ' Wait for it to end.' : ' Wait for it to end, or cancel it.';
  return {
    code: 'BUSY',
    title: 'Busy',
    text: `${operationWords(running)} is running${where} (since ${at}).${then}`,
    retryable: true,
  };
}
