// `cairn backup` (restic 0.18 cmd_backup.go): collects the targets (arguments, --files-from*,
// or standard input), what to leave out, then runs the archiver under a non-exclusive lock —
// or, with --dry-run, without a lock and storing nothing. Exit 0; 3 when some source could not
// be read (the snapshot is saved without it); 1 on a fatal error (no snapshot).

import { backup, type BackupOptions, type BackupResult } from '../../core/archiver/archiver';
import type { PoolFactory } from '../../core/archiver/pool';
import { inProcessPool } from '../../core/archiver/pool';
import type { SourceFS } from '../../core/archiver/source';
import type { Repository } from '../../core/repository/repository';
import { GoTime } from '../../core/data/go-time';
import { isAlive, withRepository, type Context } from '../context';
import { localOwner } from '../global';
import { nodeSource } from '../adapters/node-source';
import { commandOutput, streamSource } from '../adapters/stdin-source';
import { nodeThreadPool } from '../pool/node-pool';
import { terminalProgress } from '../progress';
import type { BackendSpec } from '../location';
import { BACKUP_FLAGS, backupOptions, checkOptions, type BackupCommandOptions } from '../backup/options';
import { collectTargets } from '../backup/targets';
import { combine, parseBytes, rejectByDevice, rejectByPatterns, rejectBySize, rejectIfPresent, type Reject } from '../backup/rejects';
import { readPatternFile } from '../text-files';
import { dryRunBackend } from '../backup/dry-run';
import { itemPrinter, printError, printSummary, printWarning, type ReportStyle } from '../backup/report';
import os, { cpus } from 'node:os';
import path from 'node:path';
import { journaledSaver } from '../../core/repository/adopt';
import { adoptLeftovers, cacheRoot, closeJournal, fileJournal, journalDir } from '../backup/journal';

export const summary = 'Create a new backup of files and/or directories';

export const flags = BACKUP_FLAGS;

/** Where the bytes come from: the file system, or one stream saved as a file. */
interface Source {
  fs: SourceFS;
  targets: string[];
  /** Some targets did not exist and were skipped. */
  skipped: boolean;
  pool(spec: BackendSpec, repo: Repository, journal?: string): PoolFactory;
  /** restic looks for a parent unless it reads standard input. */
  parentLookup: boolean;
}

function fileSource(o: BackupCommandOptions, style: ReportStyle): Source {
  const { targets, skipped } = collectTargets(o, (m, item) => printError(style, m, item));
  const pool = (spec: BackendSpec, _repo: Repository, journal?: string) => nodeThreadPool({ backend: spec, dryRun: o.dryRun, journal, ...threads(o) });
  return { fs: nodeSource({ withAtime: o.withAtime }), targets, skipped, pool, parentLookup: true };
}

/** --read-concurrency n: at most n large files read at once, over min(n, cores) threads. */
function threads(o: BackupCommandOptions): { threads?: number; parallelPerThread?: number } {
  if (!o.readConcurrency) return { threads: o.threads };
  const n = o.threads ?? Math.min(o.readConcurrency, cpus().length);
  return { threads: n, parallelPerThread: Math.ceil(o.readConcurrency / n) };
}

function streamedSource(o: BackupCommandOptions, time: GoTime, warnf: (m: string) => void): Source {
  const cmd = o.stdinFromCommand ? commandOutput(o.args, warnf) : undefined;
  const s = streamSource(o.stdinFilename, cmd ? cmd.stdout : process.stdin, time, cmd?.exited);
  const pool = (_spec: BackendSpec, repo: Repository, journal?: string) =>
    inProcessPool({ saver: journal ? journaledSaver(repo.backend, fileJournal(journal)) : repo.backend, reader: s.reader, concurrency: 1 });
  return { fs: s.fs, targets: [s.target], skipped: false, pool, parentLookup: !o.stdin };
}

/** What --exclude*, --one-file-system, --exclude-larger-than and --exclude-if-present leave out. */
function rejects(o: BackupCommandOptions, targets: string[], env: NodeJS.ProcessEnv, warnf: (m: string) => void): Reject | undefined {
  const files = !o.stdin && !o.stdinFromCommand;
  const excludes = [...o.excludes, ...o.excludeFiles.flatMap((f) => readPatternFile(f, env))];
  const iexcludes = [...o.iexcludes, ...o.iexcludeFiles.flatMap((f) => readPatternFile(f, env))];
  return combine([
    rejectByPatterns(excludes, false),
    rejectByPatterns(iexcludes, true),
    o.oneFileSystem && files ? rejectByDevice(targets) : undefined,
    o.excludeLargerThan && files ? rejectBySize(parseBytes(o.excludeLargerThan)) : undefined,
    ...o.excludeIfPresent.map((spec) => rejectIfPresent(spec, warnf)),
  ]);
}

function archiverOptions(
  ctx: Context<typeof flags>,
  o: BackupCommandOptions,
  src: Source,
  exclude: Reject | undefined,
  style: ReportStyle,
  time: GoTime,
): BackupOptions {
  const owner = localOwner();
  return {
    targets: src.targets,
    hostname: o.host ?? owner.hostname,
    username: owner.username,
    uid: owner.uid,
    gid: owner.gid,
    tags: o.tags,
    parent: src.parentLookup ? o.parent : undefined, // restic ignores --parent with --stdin
    force: o.force || !src.parentLookup,
    excludes: o.excludes, // restic records the --exclude patterns only
    exclude,
    time: o.time ?? time, // restic stamps the snapshot when the command starts, before opening the repository
    strictChangeDetection: true,
    skipIfUnchanged: o.skipIfUnchanged,
    signal: ctx.signal,
    onProgress: ctx.globals.quiet ? undefined : terminalProgress(ctx.out, ctx.globals.json),
    onWarning: (w) => printWarning(style, w),
    onItem: itemPrinter(style),
  };
}

/** This run's pack journal file, unless it stores nothing or --no-cache says to keep no files. */
function journalFile(ctx: Context<typeof flags>, o: BackupCommandOptions, repo: Repository): string | undefined {
  if (o.dryRun || ctx.globals.noCache) return undefined;
  const dir = journalDir(cacheRoot(ctx.globals.cacheDir, ctx.globals.env), repo.config.id);
  return path.join(dir, `${os.hostname()}-${process.pid}`);
}

/** Under the lock: takes up what killed backups of this host stored, runs this one, and drops its journal once all is indexed. */
async function journaled(
  ctx: Context<typeof flags>,
  repo: Repository,
  journal: string | undefined,
  style: ReportStyle,
  save: (j?: string) => Promise<BackupResult>,
) {
  if (!journal) return save();
  await repo.loadIndex({ signal: ctx.signal });
  const left = await adoptLeftovers(repo, path.dirname(journal), os.hostname(), isAlive, ctx.signal);
  if (left.adopted.length && style.verbosity >= 2 && !style.json) style.out.stdout(`adopted ${left.adopted.length} packs stored by an interrupted backup\n`);
  try {
    return await save(journal);
  } finally {
    closeJournal(journal, repo);
  }
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const o = backupOptions(ctx.flags, ctx.args, ctx.globals.env);
  checkOptions(o, ctx.globals);
  const style: ReportStyle = { out: ctx.out, json: ctx.globals.json, verbosity: ctx.globals.verbosity, log: ctx.log };
  const warnf = (m: string) => printError(style, m);
  const now = GoTime.fromDate(new Date());
  const src = o.stdin || o.stdinFromCommand ? streamedSource(o, o.time ?? now, warnf) : fileSource(o, style);
  const exclude = rejects(o, src.targets, ctx.globals.env, warnf);
  let started = 0;
  // A dry run writes nothing, not even a lock (restic 0.18 openWithAppendLock).
  const result = await withRepository(
    ctx,
    'append',
    ({ repo, spec }) => {
      started = Date.now();
      const save = (journal?: string) =>
        backup(repo, src.fs, src.pool(spec, repo, journal), {
          ...archiverOptions(ctx, o, src, exclude, style, now),
          journal: journal ? fileJournal(journal) : undefined,
        });
      return journaled(ctx, repo, journalFile(ctx, o, repo), style, save);
    },
    { wrap: o.dryRun ? dryRunBackend : undefined, noLock: o.dryRun },
  );
  printSummary(style, { result, dryRun: o.dryRun, seconds: (Date.now() - started) / 1000 });
  // restic exits 3 for every archiver error: unreadable sources and an unreadable parent alike.
  if (src.skipped || result.warnings.some((w) => w.code === 'SOURCE_READ' || w.repository)) {
    warnf('Warning: at least one source file could not be read\n');
    return 3;
  }
  return 0;
}
