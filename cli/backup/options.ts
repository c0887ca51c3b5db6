// `cairn backup`'s flags, as restic 0.18 names and checks them (cmd_backup.go BackupOptions,
// Check, Finalize), read into one typed object.

import { defineFlags, type FlagValues } from '../args';
import { CairnError } from '../../core/errors';
import { GoTime } from '../../core/data/go-time';
import type { GlobalOptions } from '../global';
import { EXCLUDE_FLAGS } from '../pattern-options';
import { CACHEDIR_TAG } from './rejects';

export const BACKUP_FLAGS = defineFlags({
  tag: { type: 'strings', help: 'add tags for the new snapshot in the format `tag[,tag,...]` (can be specified multiple times)' },
  host: { type: 'string', short: 'H', help: 'set the hostname for the snapshot manually (default: $RESTIC_HOST)' },
  parent: { type: 'string', help: 'use this parent snapshot (default: last snapshot of this host and paths)' },
  force: { type: 'bool', short: 'f', help: 'force re-reading the source files/directories (overrides the "parent" flag)' },
  ...EXCLUDE_FLAGS,
  'exclude-caches': { type: 'bool', help: 'excludes cache directories that are marked with a CACHEDIR.TAG file' },
  'exclude-if-present': { type: 'strings', help: 'takes filename[:header], exclude contents of directories containing filename (except filename itself)' },
  'exclude-larger-than': { type: 'string', help: 'max size of the files to be backed up (allowed suffixes: k/K, m/M, g/G, t/T)' },
  'one-file-system': { type: 'bool', short: 'x', help: "exclude other file systems, don't cross filesystem boundaries and subvolumes" },
  'files-from': { type: 'strings', help: 'read the files to backup from file (can be combined with file args; can be specified multiple times)' },
  'files-from-verbatim': { type: 'strings', help: 'read the files to backup from file (can be combined with file args; can be specified multiple times)' },
  'files-from-raw': { type: 'strings', help: 'read the files to backup from file (can be combined with file args; can be specified multiple times)' },
  stdin: { type: 'bool', help: 'read backup from stdin' },
  'stdin-filename': { type: 'string', help: 'filename to use when reading from stdin (default "stdin")' },
  'stdin-from-command': { type: 'bool', help: 'interpret arguments as command to execute and store its stdout' },
  time: { type: 'string', help: 'time of the backup (ex. "2012-11-01 22:08:41") (default: now)' },
  'with-atime': { type: 'bool', help: 'store the atime for all files and directories' },
  'dry-run': { type: 'bool', short: 'n', help: 'do not upload or write any data, just show what would be done' },
  'skip-if-unchanged': { type: 'bool', help: 'skip snapshot creation if identical to parent snapshot' },
  'read-concurrency': { type: 'int', help: 'read n files concurrently (default: $RESTIC_READ_CONCURRENCY or one thread per core)' },
  threads: { type: 'int', help: 'worker threads that read, chunk and encrypt (default: one per core)' },
});

export interface BackupCommandOptions {
  args: string[];
  tags: string[];
  host?: string;
  parent?: string;
  force: boolean;
  excludes: string[];
  iexcludes: string[];
  excludeFiles: string[];
  iexcludeFiles: string[];
  excludeIfPresent: string[];
  excludeLargerThan?: string;
  oneFileSystem: boolean;
  filesFrom: string[];
  filesFromVerbatim: string[];
  filesFromRaw: string[];
  stdin: boolean;
  stdinFilename: string;
  stdinFromCommand: boolean;
  time?: GoTime;
  withAtime: boolean;
  dryRun: boolean;
  skipIfUnchanged: boolean;
  readConcurrency?: number;
  threads?: number;
}

/** Go time.ParseInLocation("2006-01-02 15:04:05", s, time.Local). */
function parseTime(s: string): GoTime {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s);
  const d = m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
  if (!d || Number.isNaN(d.getTime())) throw new CairnError('USAGE', `error in time option: cannot parse ${JSON.stringify(s)} as "2006-01-02 15:04:05"`);
  return GoTime.fromMillis(d.getTime(), -d.getTimezoneOffset());
}

function readConcurrency(flag: number | undefined, env: NodeJS.ProcessEnv): number | undefined {
  if (flag !== undefined) {
    if (flag < 0) throw new CairnError('USAGE', `invalid argument "${flag}" for "--read-concurrency" flag: negative`);
    return flag || undefined;
  }
  const v = env.RESTIC_READ_CONCURRENCY;
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v)) throw new CairnError('USAGE', `invalid value for RESTIC_READ_CONCURRENCY ${JSON.stringify(v)}`);
  return Number(v) || undefined;
}

export function backupOptions(f: FlagValues<typeof BACKUP_FLAGS>, args: readonly string[], env: NodeJS.ProcessEnv): BackupCommandOptions {
  const excludeCaches = f['exclude-caches'] === true;
  return {
    args: [...args],
    tags: (f.tag ?? []).flatMap((t) => t.split(',')).filter(Boolean),
    host: f.host || env.RESTIC_HOST || undefined,
    parent: f.parent,
    force: f.force === true,
    excludes: f.exclude ?? [],
    iexcludes: f.iexclude ?? [],
    excludeFiles: f['exclude-file'] ?? [],
    iexcludeFiles: f['iexclude-file'] ?? [],
    excludeIfPresent: [...(f['exclude-if-present'] ?? []), ...(excludeCaches ? [CACHEDIR_TAG] : [])],
    excludeLargerThan: f['exclude-larger-than'],
    oneFileSystem: f['one-file-system'] === true,
    filesFrom: f['files-from'] ?? [],
    filesFromVerbatim: f['files-from-verbatim'] ?? [],
    filesFromRaw: f['files-from-raw'] ?? [],
    stdin: f.stdin === true,
    stdinFilename: f['stdin-filename'] ?? 'stdin',
    stdinFromCommand: f['stdin-from-command'] === true,
    time: f.time === undefined ? undefined : parseTime(f.time),
    withAtime: f['with-atime'] === true,
    dryRun: f['dry-run'] === true,
    skipIfUnchanged: f['skip-if-unchanged'] === true,
    readConcurrency: readConcurrency(f['read-concurrency'], env),
    threads: f.threads,
  };
}

/** Does the password come from somewhere other than standard input? */
function passwordElsewhere(globals: GlobalOptions): boolean {
  const e = globals.env;
  return Boolean(globals.passwordFlags.file || globals.passwordFlags.command || e.RESTIC_PASSWORD || e.RESTIC_PASSWORD_FILE || e.RESTIC_PASSWORD_COMMAND);
}

/** restic BackupOptions.Check: combinations that cannot work. */
export function checkOptions(o: BackupCommandOptions, globals: GlobalOptions): void {
  if (!passwordElsewhere(globals)) {
    if (o.stdin) throw new CairnError('USAGE', 'cannot read both password and data from stdin');
    if ([...o.filesFrom, ...o.filesFromVerbatim, ...o.filesFromRaw].includes('-'))
      throw new CairnError('USAGE', 'unable to read password from stdin when data is to be read from stdin, use --password-file or $RESTIC_PASSWORD');
  }
  if (o.stdin || o.stdinFromCommand) {
    if (o.filesFrom.length) throw new CairnError('USAGE', '--stdin and --files-from cannot be used together');
    if (o.filesFromVerbatim.length) throw new CairnError('USAGE', '--stdin and --files-from-verbatim cannot be used together');
    if (o.filesFromRaw.length) throw new CairnError('USAGE', '--stdin and --files-from-raw cannot be used together');
    if (o.args.length > 0 && !o.stdinFromCommand) throw new CairnError('USAGE', '--stdin was specified and files/dirs were listed as arguments');
  }
}
