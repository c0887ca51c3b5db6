// `--log-file FILE`: one JSON line per operation, appended when the command ends — restic's
// JSON style (message_type, snake_case fields, its summary numbers) so a scheduler or a
// dashboard can read what ran, when, how long, and how it ended. Nothing secret goes in: no
// arguments (a --password-command could hold one), no password, no credentials in the
// repository string. The file is opened in append mode for each line, so several cairn
// processes can share one log.

import fs from 'node:fs';
import { isCairnError, serializeError } from '../core/errors';

export interface OpLog {
  /** The command's summary numbers (restic's field names), merged into the line. */
  summary(fields: Record<string, unknown>): void;
  /** A problem on the way that did not stop the command (a file not read or not restored). */
  error(message: string, item?: string): void;
}

export interface OpLogLine {
  message_type: 'operation';
  command: string;
  repository?: string;
  start: string;
  end: string;
  /** Seconds. */
  duration: number;
  result: 'success' | 'warning' | 'failure' | 'cancelled';
  exit_code: number;
  errors: { message: string; item?: string }[];
  error?: { code: string; message: string };
  [summary: string]: unknown;
}

/** restic's exit codes: 0 ok, 3 some source files unreadable, 130 interrupted, else failed. */
export function resultOf(code: number): OpLogLine['result'] {
  return code === 0 ? 'success' : code === 3 ? 'warning' : code === 130 ? 'cancelled' : 'failure';
}

/** A repository string without credentials (an s3 URL may carry user:password@). */
export function publicLocation(repo: string | undefined): string | undefined {
  return repo?.replace(/(\/\/)[^/@]*@/, '$1');
}

/**
 * Runs `command` and, when `file` is set, appends its line. The exit code (or the error, which
 * is thrown on after logging) decides `result`. A log that cannot be written is reported on
 * stderr and does not change the command's exit code.
 */
export async function withOpLog(
  file: string | undefined,
  meta: { command: string; repository?: string },
  run: (log: OpLog | undefined) => Promise<number>,
  warn: (s: string) => void,
  now: () => Date = () => new Date(),
): Promise<number> {
  if (!file) return run(undefined);
  const start = now();
  const fields: Record<string, unknown> = {};
  const errors: OpLogLine['errors'] = [];
  const log: OpLog = {
    summary: (f) => Object.assign(fields, f),
    error: (message, item) => void errors.push(item === undefined ? { message } : { message, item }),
  };
  let code = 1;
  let failure: OpLogLine['error'];
  try {
    code = await run(log);
    return code;
  } catch (e) {
    code = isCairnError(e, 'ABORTED') ? 130 : 1;
    const s = serializeError(e);
    failure = { code: s.code, message: s.message };
    throw e;
  } finally {
    const end = now();
    const line: OpLogLine = {
      message_type: 'operation',
      command: meta.command,
      repository: publicLocation(meta.repository),
      start: start.toISOString(),
      end: end.toISOString(),
      duration: (end.getTime() - start.getTime()) / 1000,
      result: resultOf(code),
      exit_code: code,
      ...fields,
      errors,
      ...(failure ? { error: failure } : {}),
    };
    try {
      fs.appendFileSync(file, JSON.stringify(line) + '\n');
    } catch (e) {
      warn(`Warning: cannot write the log file ${file}: ${(e as Error).message}\n`);
    }
  }
}
