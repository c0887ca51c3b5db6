// Terminal output in restic's shapes: aligned tables, sizes in restic's units, one-line
// coded errors.

import { CairnError, serializeError } from '../core/errors';
import { formatBytes } from '../core/progress';

export interface Out {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
}

export const processOut: Out = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
  isTTY: process.stderr.isTTY === true,
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
