// What check reports: one problem per damaged object, naming it (pack ID, file name, blob),
// in the words restic's checker uses where it has them.

import { serializeError, type ErrorCode } from '../errors';
import type { ID } from '../id';

export interface CheckProblem {
  /** Stable kind for tests and tools. */
  kind: 'index' | 'pack-missing' | 'pack-size' | 'pack-unreferenced' | 'pack-hash' | 'pack-header' | 'blob' | 'snapshot' | 'tree' | 'key' | 'lock';
  code: ErrorCode;
  message: string;
  pack?: ID;
  blob?: ID;
  snapshot?: ID;
  /** The damaged file itself, as restic names it (`keys/1234…`, `index/…`, `locks/…`). */
  file?: string;
  /** Files in snapshots whose contents use the damaged blob (a few, when the damage is in data). */
  files?: string[];
  /** Non-fatal findings (restic prints them as hints): unreferenced packs, unreadable locks. */
  hint?: boolean;
}

export type Report = (p: Omit<CheckProblem, 'code'> & { code?: ErrorCode }) => void;

/** `message` prefixed with `name` once: errors from lower layers often name the object already. */
export function named(name: string, message: string): string {
  return message.startsWith(name + ': ') || message.startsWith(name + ' ') ? message : `${name}: ${message}`;
}

/** A problem for an error thrown while reading `name`. */
export function problemFrom(e: unknown, name: string): { code: ErrorCode; message: string } {
  const s = serializeError(e);
  return { code: s.code, message: named(name, s.message) };
}
