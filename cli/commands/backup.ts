import os from 'node:os';
import fs from 'node:fs';
import { CairnError } from '../../core/errors';
import { backup } from '../../core/archiver/archiver';
import { GoTime } from '../../core/data/go-time';
import { formatBytes, formatDuration } from '../../core/progress';
import { matchAny, parsePattern } from '../../core/filter/pattern';
import type { FlagSpecs } from '../args';
import { openRepository, withLock, type Context } from '../context';
import { localOwner } from '../global';
import { nodeSourceFS } from '../adapters/node-source';
import { nodeThreadPool } from '../pool/node-pool';
import { terminalProgress } from '../progress';

export const summary = 'Create a new backup of files and/or directories';

export const flags: FlagSpecs = {
  tag: { type: 'strings', help: 'add tags for the new snapshot in the format `tag[,tag,...]`' },
  host: { type: 'string', short: 'H', help: 'set the hostname for the snapshot manually' },
  parent: { type: 'string', help: 'use this parent snapshot (default: last snapshot of this host and paths)' },
  force: { type: 'bool', short: 'f', help: 'force re-reading the target files/directories (overrides the "parent" flag)' },
  exclude: { type: 'strings', short: 'e', help: 'exclude a pattern' },
  iexclude: { type: 'strings', help: 'same as --exclude but ignores the casing of filenames' },
  'exclude-file': { type: 'strings', help: 'read exclude patterns from a file' },
  'files-from': { type: 'strings', help: 'read the files to backup from a file (one per line)' },
  time: { type: 'string', help: 'time of the backup (ex. "2012-11-01 22:08:41") (default: now)' },
  threads: { type: 'int', help: 'worker threads that read, chunk and encrypt (default: one per core)' },
};

export async function run(ctx: Context): Promise<number> {
  const f = ctx.p.flags;
  const targets = [...ctx.p.args];
  for (const file of (f['files-from'] as string[] | undefined) ?? []) {
    targets.push(
      ...fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#')),
    );
  }
  if (targets.length === 0) throw new CairnError('USAGE', 'nothing to backup, please specify target files/dirs');
  const excludes = [...((f.exclude as string[] | undefined) ?? [])];
  for (const file of (f['exclude-file'] as string[] | undefined) ?? []) {
    excludes.push(
      ...fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#')),
    );
  }
  const iexcludes = ((f.iexclude as string[] | undefined) ?? []).map((p) => parsePattern(p.toLowerCase()));
  const patterns = excludes.map(parsePattern);
  const exclude =
    patterns.length || iexcludes.length
      ? (p: string) => {
          const comps = p.split('/').filter(Boolean);
          return (
            matchAny(patterns, comps) ||
            matchAny(
              iexcludes,
              comps.map((c) => c.toLowerCase()),
            )
          );
        }
      : undefined;
  const tags = ((f.tag as string[] | undefined) ?? []).flatMap((t) => t.split(',')).filter(Boolean);
  let time: GoTime | undefined;
  if (f.time) {
    const d = new Date((f.time as string).replace(' ', 'T'));
    if (Number.isNaN(d.getTime())) throw new CairnError('USAGE', `invalid --time ${f.time}`);
    time = GoTime.fromMillis(d.getTime(), -d.getTimezoneOffset());
  }

  const { repo, spec } = await openRepository(ctx);
  const owner = localOwner();
  const hostname = (f.host as string | undefined) ?? owner.hostname;
  const started = Date.now();
  const result = await withLock(ctx, repo, false, async () => {
    return backup(repo, nodeSourceFS, nodeThreadPool({ backend: spec, threads: f.threads as number | undefined }), {
      targets,
      hostname,
      username: owner.username,
      uid: owner.uid,
      gid: owner.gid,
      tags,
      parent: f.parent as string | undefined,
      force: f.force === true,
      excludes: [...excludes, ...((f.iexclude as string[] | undefined) ?? [])],
      exclude,
      time,
      strictChangeDetection: true,
      signal: ctx.signal,
      onProgress: ctx.g.quiet ? undefined : terminalProgress(ctx.out, ctx.g.json),
      onWarning: (w) => {
        ctx.log?.error(w.message, w.path);
        if (ctx.g.json) ctx.out.stderr(JSON.stringify({ message_type: 'error', error: { message: w.message }, during: 'archival', item: w.path }) + '\n');
        else ctx.out.stderr(`error: ${w.message}\n`);
      },
    });
  });
  const s = result.summary;
  const seconds = (Date.now() - started) / 1000;
  const summaryFields = {
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
    total_duration: seconds,
    snapshot_id: result.id,
    parent: result.parent,
    files_read: result.filesRead,
  };
  ctx.log?.summary(summaryFields);
  if (ctx.g.json) {
    ctx.out.stdout(JSON.stringify({ message_type: 'summary', ...summaryFields }) + '\n');
  } else if (!ctx.g.quiet) {
    const pad = (n: number) => String(n).padStart(5);
    ctx.out.stdout(
      (result.parent ? `using parent snapshot ${result.parent.slice(0, 8)}\n` : 'no parent snapshot found, will read all files\n') +
        '\n' +
        `Files:       ${pad(s.filesNew)} new, ${pad(s.filesChanged)} changed, ${pad(s.filesUnmodified)} unmodified\n` +
        `Dirs:        ${pad(s.dirsNew)} new, ${pad(s.dirsChanged)} changed, ${pad(s.dirsUnmodified)} unmodified\n` +
        (ctx.g.verbose ? `Data Blobs:  ${pad(s.dataBlobs)} new\nTree Blobs:  ${pad(s.treeBlobs)} new\n` : '') +
        `Added to the repository: ${formatBytes(s.dataAdded)} (${formatBytes(s.dataAddedPacked)} stored)\n` +
        '\n' +
        `processed ${s.totalFilesProcessed} files, ${formatBytes(s.totalBytesProcessed)} in ${formatDuration(seconds)}\n` +
        `snapshot ${result.id.slice(0, 8)} saved\n`,
    );
  }
  if (result.warnings.some((w) => w.code === 'SOURCE_READ')) {
    ctx.out.stderr('Warning: at least one source file could not be read\n');
    return 3;
  }
  void os;
  return 0;
}
