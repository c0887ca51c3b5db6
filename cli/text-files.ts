// Text files the command line reads as restic reads them: --files-from listings and the
// pattern files of --exclude-file, --include-file and their case-insensitive twins (restic's
// textfile.Read, bufio.Scanner lines and readPatternsFromFiles with os.Expand).

import fs from 'node:fs';
import { CairnError } from '../core/errors';

/** restic's textfile.Read: the file's text without a UTF-8 byte order mark (UTF-16 with one is decoded). */
export function readText(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder().decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  return new TextDecoder().decode(bytes);
}

/** Lines as Go's bufio.Scanner splits them: on \n, a trailing \r dropped, no empty last line. */
export function scanLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * restic readPatternsFromFiles: lines trimmed, empty and `#` lines skipped, `$VAR`/`${VAR}`
 * replaced by the environment (`$$` is a dollar sign), as Go's os.Expand does.
 */
export function readPatternFile(file: string, env: NodeJS.ProcessEnv): string[] {
  let text: string;
  try {
    text = readText(new Uint8Array(fs.readFileSync(file)));
  } catch (e) {
    throw new CairnError('USAGE', `failed to read patterns from file "${file}": ${(e as Error).message}`, { cause: e });
  }
  return scanLines(text)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => goExpand(l, env));
}

/** Go's os.Expand with restic's mapping: $$ → $, $NAME and ${NAME} → the variable (or ''). */
export function goExpand(s: string, env: NodeJS.ProcessEnv): string {
  return s.replace(/\$(\{([^}]*)\}|[*#$@!?\-0-9]|[A-Za-z_][A-Za-z0-9_]*)?/g, (m, _g, braced: string | undefined) => {
    if (m === '$' || m === '$$') return '$';
    const name = braced ?? m.slice(1);
    return env[name] ?? '';
  });
}

/** The patterns of every file, in order (restic readPatternsFromFiles over a list). */
export function readPatternFiles(files: readonly string[], env: NodeJS.ProcessEnv): string[] {
  return files.flatMap((f) => readPatternFile(f, env));
}
