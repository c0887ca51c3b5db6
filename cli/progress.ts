// Backup/restore progress on stderr while it is a terminal (restic's one-line status), and
// restic's JSON status lines with --json.

import type { ProgressSnapshot } from '../core/progress';
import { formatBytes, formatDuration } from '../core/progress';
import type { Out } from './output';

export function terminalProgress(out: Out, json: boolean): ((p: ProgressSnapshot) => void) | undefined {
  if (json) {
    return (p) => {
      const pct = p.total.bytes > 0 ? Math.min(1, p.done.bytes / p.total.bytes) : 0;
      const o: Record<string, unknown> = {
        message_type: 'status',
        seconds_elapsed: Math.floor(p.elapsedMs / 1000),
        percent_done: pct,
        total_files: p.total.files,
        files_done: p.done.files,
        total_bytes: p.total.bytes,
        bytes_done: p.done.bytes,
        error_count: p.errors,
      };
      if (p.etaSec !== undefined) o.seconds_remaining = Math.round(p.etaSec);
      if (p.currentFiles.length) o.current_files = p.currentFiles;
      out.stdout(JSON.stringify(o) + '\n');
    };
  }
  if (!out.isTTY) return undefined;
  return (p) => {
    if (p.phase === 'done') {
      out.stderr('\r\x1b[K');
      return;
    }
    const pct = p.total.bytes > 0 ? ((100 * p.done.bytes) / p.total.bytes).toFixed(2) + '%' : '';
    const rate = `${formatBytes(p.bytesPerSec)}/s`;
    const eta = p.etaSec !== undefined ? ` ETA ${formatDuration(p.etaSec)}` : '';
    const cur = p.currentFiles[0] ? ` ${p.currentFiles[0]}` : '';
    const line = `[${formatDuration(p.elapsedMs / 1000)}] ${pct}  ${p.done.files} files ${formatBytes(p.done.bytes)}, total ${p.total.files} files ${formatBytes(p.total.bytes)}, ${p.errors} errors, ${rate}${eta}${cur}`;
    const width = (process.stderr.columns ?? 120) - 1;
    out.stderr('\r\x1b[K' + (line.length > width ? line.slice(0, width) : line));
  };
}
