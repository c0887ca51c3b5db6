// Help texts in cobra's shape (restic's CLI framework): `cairn --help`, `cairn help <command>`
// and `cairn <command> --help` print to stdout and exit 0, as restic does.

import type { FlagSpec, FlagSpecs } from './args';
import { GLOBAL_FLAGS } from './global';

export interface CommandInfo {
  summary: string;
  flags: FlagSpecs;
  /** The arguments after the command's name ("[flags] snapshotID file"). */
  usage?: string;
  /** A longer description shown above Usage. */
  description?: string;
}

/** The value's name after a flag (a count is named `n`, as restic's --verbose). */
const flagValueName: Record<FlagSpec['type'], string> = { bool: '', count: 'n', string: 'string', strings: 'stringArray', int: 'int' };

/** pflag's FlagUsages: `  -x, --name type   help`, the help column aligned over the whole set. */
function flagLines(flags: FlagSpecs): string {
  const rows = Object.entries(flags)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, s]) => {
      const type = flagValueName[s.type];
      return [`  ${s.short ? `-${s.short}, ` : '    '}--${name}${type ? ' ' + type : ''}`, s.help ?? ''];
    });
  const width = Math.max(0, ...rows.map(([l]) => l!.length));
  return rows.map(([l, h]) => `${l!.padEnd(width)}   ${h}`.trimEnd() + '\n').join('');
}

export function rootHelp(commands: Record<string, CommandInfo>): string {
  const names = [...Object.keys(commands), 'help', 'version'].sort();
  const summary = (n: string) => (n === 'help' ? 'Help about any command' : n === 'version' ? 'Print version information' : commands[n]!.summary);
  const width = Math.max(...names.map((n) => n.length)) + 3;
  return (
    'cairn is a restic-compatible backup program: the same repositories, commands, flags and output.\n\n' +
    'Usage:\n  cairn [command]\n\nAvailable Commands:\n' +
    names.map((n) => `  ${n.padEnd(width)}${summary(n)}\n`).join('') +
    '\nFlags:\n' +
    flagLines(GLOBAL_FLAGS) +
    '\nEnvironment: RESTIC_REPOSITORY, RESTIC_REPOSITORY_FILE, RESTIC_PASSWORD, RESTIC_PASSWORD_FILE,\nRESTIC_PASSWORD_COMMAND, RESTIC_KEY_HINT, RESTIC_COMPRESSION, RESTIC_PACK_SIZE, AWS_ACCESS_KEY_ID,\nAWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION, AWS_SESSION_TOKEN\n\n' +
    'Use "cairn [command] --help" for more information about a command.\n'
  );
}

export function commandHelp(name: string, c: CommandInfo): string {
  const { help: _help, ...globals } = GLOBAL_FLAGS;
  const own = { ...c.flags, help: { type: 'bool', short: 'h', help: `help for ${name}` } } satisfies FlagSpecs;
  return (
    (c.description ? c.description.replace(/^\n*/, '\n').replace(/\n*$/, '\n\n') : `${c.summary}\n\n`) +
    `Usage:\n  cairn ${name} ${c.usage ?? '[flags]'}\n\nFlags:\n` +
    flagLines(own) +
    '\nGlobal Flags:\n' +
    flagLines(globals)
  );
}
