// `cairn backup --stdin` and `--stdin-from-command` (restic 0.18 fs.Reader): the snapshot holds
// one file, /<--stdin-filename>, whose bytes are standard input or a command's standard output,
// with mode 0644, the backup's time as mtime/atime/ctime and this process's uid and gid. Folders
// on the way to it (a name with slashes) are 0755 directories with the same time. No data read
// is an error, as in restic; a command that exits non-zero fails the backup: no snapshot.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { CairnError } from '../../core/errors';
import type { GoTime } from '../../core/data/go-time';
import { ModeDir } from '../../core/data/file-mode';
import type { FileContentReader, SourceEntry, SourceFS } from '../../core/archiver/source';

export interface StreamSource {
  fs: SourceFS;
  reader: FileContentReader;
  /** The path recorded in the snapshot (`/` + the file name). */
  target: string;
}

/** A command's standard output; its standard error goes to `log`, line by line, as restic prints it. */
export function commandOutput(args: string[], log: (line: string) => void): { stdout: Readable; exited: Promise<number | null> } {
  if (args.length === 0) throw new CairnError('USAGE', 'no command was specified as argument');
  const child = spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let rest = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    const lines = (rest + d).split('\n');
    rest = lines.pop()!;
    for (const l of lines) log(`subprocess ${args[0]}: ${l}\n`);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', (e) => reject(new CairnError('USAGE', `failed to start command: ${e.message}`, { cause: e })));
    child.on('close', (code, signal) => {
      if (rest) log(`subprocess ${args[0]}: ${rest}\n`);
      resolve(signal ? null : code);
    });
  });
  // Piped at once: a child's stdout nobody reads yet loses what it holds when the child exits.
  const stdout = child.stdout.pipe(new PassThrough());
  return { stdout, exited };
}

export function streamSource(filename: string, input: Readable, time: GoTime, exited?: Promise<number | null>): StreamSource {
  const target = path.posix.join('/', filename);
  const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const entry = (p: string): SourceEntry => {
    const name = path.posix.basename(p);
    const isFile = p === target;
    const mode = isFile ? 0o644 : (ModeDir | 0o755) >>> 0;
    const node = { name, type: isFile ? ('file' as const) : ('dir' as const), mode, mtime: time, atime: time, ctime: time, ...owner };
    return { path: p, size: 0, ref: p, node, stream: isFile };
  };
  const fs: SourceFS = {
    async stat(p) {
      if (p === target || target.startsWith(p === '/' ? '/' : p + '/')) return entry(p);
      throw new CairnError('SOURCE_READ', `${p}: no such file in the stream source`);
    },
    readDir: async () => [],
    components: (p) => p.split('/').filter(Boolean),
    join: (c) => '/' + c.join('/'),
    absolute: (p) => path.posix.resolve('/', p),
  };
  const reader: FileContentReader = {
    async *read() {
      let any = false;
      for await (const chunk of input) {
        const bytes = new Uint8Array((chunk as Buffer).buffer, (chunk as Buffer).byteOffset, (chunk as Buffer).length);
        if (bytes.length > 0) any = true;
        yield bytes;
      }
      const code = await exited;
      if (exited && code !== 0)
        throw new CairnError('SOURCE_COMMAND_FAILED', `command failed: ${code === null ? 'killed by a signal' : `exit status ${code}`}`);
      if (!any) throw new CairnError('SOURCE_READ', `read ${target}: no data read`);
    },
  };
  return { fs, reader, target };
}
