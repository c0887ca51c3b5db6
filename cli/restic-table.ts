// restic's ui/table: every column as wide as its widest line in bytes (header included), two
// spaces between columns, lines right-trimmed, rules as long as the whole width; with
// `spaced`, a row of several lines is set off by a blank line (restic's multi-path snapshots).

const width = (s: string) => Buffer.byteLength(s, 'utf8');

export function resticTable(headers: string[], rows: string[][], footer: string[], spaced = false): string {
  const widths = headers.map((h) => width(h));
  for (const r of rows) r.forEach((c, i) => c.split('\n').forEach((l) => (widths[i] = Math.max(widths[i]!, width(l)))));
  const total = widths.reduce((a, b) => a + b, 0) + (headers.length - 1) * 2;
  const lines = (cells: string[]) => {
    const split = cells.map((c) => c.split('\n'));
    const n = Math.max(1, ...split.map((l) => l.length));
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const s = split.map((l, k) => (k > 0 ? '  ' : '') + (l[i] ?? '') + ' '.repeat(Math.max(0, widths[k]! - width(l[i] ?? '')))).join('');
      out.push(s.replace(/ +$/, ''));
    }
    return out;
  };
  let t = lines(headers).join('\n') + '\n' + '-'.repeat(total) + '\n';
  rows.forEach((r, idx) => {
    lines(r).forEach((l, i) => (t += (spaced && idx > 0 && i === 0 ? '\n' : '') + l + '\n'));
  });
  t += '-'.repeat(total) + '\n';
  for (const f of footer) t += f + '\n';
  return t;
}
