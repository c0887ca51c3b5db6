// What `cairn backup` prints, in restic 0.18's shapes (internal/ui/backup text.go, json.go):
// warnings as `error: …` lines (JSON error messages), each item at -vv (verbose_status in JSON),
// and the summary, where a dry run says "Would add" and names no snapshot.

import type { CompletedItem } from '../../core/archiver/backup-stats';
import type { BackupResult, BackupWarning } from '../../core/archiver/archiver';
import { formatBytes, formatDuration } from '../../core/progress';
import type { Out } from '../output';
import type { OpLog } from '../op-log';

export interface ReportStyle {
  out: Out;
  json: boolean;
  /** restic's verbosity: 0 quiet, 1 normal, 2 -v, 3 -vv. */
  verbosity: number;
  /** With --log-file: where the summary numbers and the warnings also go. */
  log?: OpLog;
}

/** restic's printer.E: a message on stderr (an error object in JSON); one about `item` also goes to the --log-file line. */
export function printError(r: ReportStyle, message: string, item?: string): void {
  if (item !== undefined) r.log?.error(message.trimEnd(), item);
  if (r.json) r.out.stderr(JSON.stringify({ message_type: 'error', error: { message: message.trimEnd() } }) + '\n');
  else r.out.stderr(message.endsWith('\n') ? message : message + '\n');
}

export function printWarning(r: ReportStyle, w: BackupWarning): void {
  r.log?.error(w.message, w.path);
  if (r.json) r.out.stderr(JSON.stringify({ message_type: 'error', error: { message: w.message }, during: 'archival', item: w.path }) + '\n');
  else r.out.stderr(`error: ${w.message}\n`);
}

/** restic's CompleteItem: one line per file and directory, at -vv (JSON: at -v). */
export function itemPrinter(r: ReportStyle): ((i: CompletedItem) => void) | undefined {
  if (r.json) return r.verbosity >= 2 ? (i) => r.out.stdout(JSON.stringify(verboseStatus(i)) + '\n') : undefined;
  if (r.verbosity < 3) return undefined;
  return (i) => r.out.stdout(itemLine(i) + '\n');
}

function itemLine(i: CompletedItem): string {
  const secs = (i.durationMs / 1000).toFixed(3);
  const s = i.stats;
  if (i.action === 'unchanged') return `unchanged ${i.path}`;
  const verb = i.action === 'new' ? 'new      ' : 'modified ';
  if (i.type === 'dir') {
    return `${verb} ${i.path}, saved in ${secs}s (${formatBytes(s.dataSize)} added, ${formatBytes(s.dataSizeInRepo)} stored, ${formatBytes(s.treeSizeInRepo)} metadata)`;
  }
  if (i.action === 'new') return `${verb} ${i.path}, saved in ${secs}s (${formatBytes(s.dataSize)} added)`;
  return `${verb} ${i.path}, saved in ${secs}s (${formatBytes(s.dataSize)} added, ${formatBytes(s.dataSizeInRepo)} stored)`;
}

function verboseStatus(i: CompletedItem): Record<string, unknown> {
  const base = { message_type: 'verbose_status', action: i.action, item: i.path };
  if (i.action === 'unchanged') return { ...base, duration: 0, data_size: 0, data_size_in_repo: 0, metadata_size: 0, metadata_size_in_repo: 0, total_files: 0 };
  const s = i.stats;
  const meta = i.type === 'dir' ? { metadata_size: s.treeSize, metadata_size_in_repo: s.treeSizeInRepo } : { metadata_size: 0, metadata_size_in_repo: 0 };
  return { ...base, duration: i.durationMs / 1000, data_size: s.dataSize, data_size_in_repo: s.dataSizeInRepo, ...meta, total_files: 0 };
}

export interface Finished {
  result: BackupResult;
  dryRun: boolean;
  seconds: number;
}

export function printSummary(r: ReportStyle, f: Finished): void {
  const o = summaryFields(f);
  r.log?.summary(o);
  if (r.json) {
    r.out.stdout(JSON.stringify({ message_type: 'summary', ...o }) + '\n');
    return;
  }
  if (r.verbosity < 1) return;
  r.out.stdout(summaryText(f, r.verbosity));
}

/** restic 0.18's JSON summary fields (without message_type). */
function summaryFields(f: Finished): Record<string, unknown> {
  const s = f.result.summary;
  const o: Record<string, unknown> = {
    files_new: s.filesNew,
    files_changed: s.filesChanged,
    files_unmodified: s.filesUnmodified,
    dirs_new: s.dirsNew,
    dirs_changed: s.dirsChanged,
    dirs_unmodified: s.dirsUnmodified,
    data_blobs: s.dataBlobs,
    tree_blobs: s.treeBlobs,
    data_added: s.dataAdded,
    data_added_packed: s.dataAddedPacked,
    total_files_processed: s.totalFilesProcessed,
    total_bytes_processed: s.totalBytesProcessed,
    total_duration: f.seconds,
    backup_start: s.backupStart.format(),
    backup_end: s.backupEnd.format(),
  };
  if (f.result.id && !f.dryRun) o.snapshot_id = f.result.id;
  if (f.dryRun) o.dry_run = true;
  o.parent = f.result.parent;
  o.files_read = f.result.filesRead;
  return o;
}

function summaryText(f: Finished, verbosity: number): string {
  const s = f.result.summary;
  const pad = (n: number) => String(n).padStart(5);
  const parent = f.result.parent ? `using parent snapshot ${f.result.parent.slice(0, 8)}\n` : 'no parent snapshot found, will read all files\n';
  const blobs = verbosity >= 2 ? `Data Blobs:  ${pad(s.dataBlobs)} new\nTree Blobs:  ${pad(s.treeBlobs)} new\n` : '';
  const verb = f.dryRun ? 'Would add' : 'Added';
  const end = f.dryRun ? '' : f.result.id ? `snapshot ${f.result.id.slice(0, 8)} saved\n` : 'skipped creating snapshot\n';
  return (
    parent +
    '\n' +
    `Files:       ${pad(s.filesNew)} new, ${pad(s.filesChanged)} changed, ${pad(s.filesUnmodified)} unmodified\n` +
    `Dirs:        ${pad(s.dirsNew)} new, ${pad(s.dirsChanged)} changed, ${pad(s.dirsUnmodified)} unmodified\n` +
    blobs +
    `${verb} to the repository: ${formatBytes(s.dataAdded)} (${formatBytes(s.dataAddedPacked)} stored)\n` +
    '\n' +
    `processed ${s.totalFilesProcessed} files, ${formatBytes(s.totalBytesProcessed)} in ${formatDuration(f.seconds)}\n` +
    end
  );
}
