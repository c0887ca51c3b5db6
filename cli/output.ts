// Terminal output in restic's shapes: aligned tables, sizes in restic's units, one-line
// coded errors.

import { CairnError, serializeError } from '../core/errors';
import { formatBytes } from '../core/progress';

export interface Out {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
  /** Writes out what stdout holds back, before bytes go to process.stdout some other way. */
  flush?: () => void;
}

/** What stdout holds back at most: a write(2) per line cost `ls` of 1 M files seconds. */
const STDOUT_CHUNK = 64 << 10;

/**
 * Text for `write` joined into chunks of up to `chunk` characters. What is held is written
 * when the chunk is full, when the current task ends (`later`: a reader of a pipe sees lines
 * as they come), and on `flush`, so nothing written is ever dropped or reordered.
 */
export function chunkedWriter(write: (s: string) => void, later: (f: () => void) => void, chunk = STDOUT_CHUNK) {
  let held = '';
  let due = false;
  const flush = () => {
    if (held === '') return;
    const s = held;
    held = '';
    write(s);
  };
  return {
    write(s: string) {
      held += s;
      if (held.length >= chunk) flush();
      else if (!due) {
        due = true;
        later(() => {
          due = false;
          flush();
        });
      }
    },
    flush,
  };
}

const stdoutChunks = chunkedWriter((s) => void process.stdout.write(s), setImmediate);
// (stdout's writes are synchronous on Linux for files, pipes and terminals: this runs in time.)
process.on('exit', stdoutChunks.flush);

export const processOut: Out = {
  stdout: stdoutChunks.write,
  stderr: (s) => {
    stdoutChunks.flush();
    process.stderr.write(s);
  },
  isTTY: process.stderr.isTTY === true,
  flush: stdoutChunks.flush,
};

/** restic's table: columns padded to their widest cell + 2, rule lines of dashes. Cells may be multi-line. */
export function table(headers: string[], rows: string[][], footer?: string): string {
  const expanded: string[][] = [];
  for (const r of rows) {
    const lines = r.map((c) => c.split('\n'));
    const h = Math.max(1, ...lines.map((l) => l.length));
    for (let i = 0; i < h; i++) expanded.push(lines.map((l) => l[i] ?? ''));
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...expanded.map((r) => [...r[i]!].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
      .join('  ')
      .trimEnd();
  const head = line(headers);
  const rule = '-'.repeat(Math.max(head.length, ...expanded.map((r) => line(r).length)));
  let out = head + '\n' + rule + '\n';
  for (const r of expanded) out += line(r) + '\n';
  out += rule + '\n';
  if (footer) out += footer + '\n';
  return out;
}

export { formatBytes };

export function errorLine(e: unknown): string {
  const s = serializeError(e);
  if (!(e instanceof CairnError) && e instanceof Error) return `INTERNAL: ${e.message}`;
  return `${s.code}: ${s.message.replace(/\s*\n\s*/g, ' ')}`;
}
