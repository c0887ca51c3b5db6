// `cairn`: restic's command line on Cairn's engine. Same command names, flags, environment
// variables and output shapes where they apply, so restic users' scripts carry over. Errors
// end in one coded line on stderr and a non-zero exit (restic's: 1 fatal, 3 some sources
// unreadable, 130 interrupted).

import { setMaxListeners } from 'node:events';
import { CairnError, isCairnError } from '../core/errors';
import { parseArgs, type FlagSpecs } from './args';
import { GLOBAL_FLAGS, globalOptions } from './global';
import { errorLine, processOut, type Out } from './output';
import { installNodePrimitives } from './adapters/node-primitives';
import { initZstdNode } from './adapters/zstd-node';
import * as init from './commands/init';
import * as backup from './commands/backup';
import * as snapshots from './commands/snapshots';
import * as ls from './commands/ls';
import * as restore from './commands/restore';
import * as cat from './commands/cat';
import * as check from './commands/check';
import * as stats from './commands/stats';
import * as key from './commands/key';
import * as unlock from './commands/unlock';
import * as list from './commands/list';
import type { Context } from './context';

interface Command {
  summary: string;
  flags: FlagSpecs;
  run(ctx: Context): Promise<number>;
}

const COMMANDS: Record<string, Command> = { init, backup, snapshots, ls, restore, cat, check, stats, key, unlock, list };

export const VERSION = '0.1.0';

function help(): string {
  const names = Object.keys(COMMANDS).sort();
  return (
    'cairn — restic-compatible encrypted backups\n\nUsage:\n  cairn [command]\n\nAvailable Commands:\n' +
    names.map((n) => `  ${n.padEnd(12)}${COMMANDS[n]!.summary}`).join('\n') +
    '\n  version     Print version information\n\nGlobal Flags:\n' +
    Object.entries(GLOBAL_FLAGS)
      .map(([n, s]) => `  ${s.short ? `-${s.short}, ` : '    '}--${n.padEnd(20)}${s.help ?? ''}`)
      .join('\n') +
    '\n\nEnvironment: RESTIC_REPOSITORY, RESTIC_REPOSITORY_FILE, RESTIC_PASSWORD, RESTIC_PASSWORD_FILE,\nRESTIC_PASSWORD_COMMAND, RESTIC_KEY_HINT, RESTIC_COMPRESSION, RESTIC_PACK_SIZE, AWS_ACCESS_KEY_ID,\nAWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION, AWS_SESSION_TOKEN\n'
  );
}

function commandHelp(name: string, c: Command): string {
  return (
    `${c.summary}\n\nUsage:\n  cairn ${name} [flags]\n\nFlags:\n` +
    Object.entries(c.flags)
      .map(([n, s]) => `  ${s.short ? `-${s.short}, ` : '    '}--${n.padEnd(20)}${s.help ?? ''}`)
      .join('\n') +
    '\n'
  );
}

/** Index of the command word: the first argument that is neither a flag nor a global flag's value. */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (!a.startsWith('-') || a === '-') return i;
    if (a.includes('=')) continue;
    if (a.startsWith('--')) {
      const spec = GLOBAL_FLAGS[a.slice(2)];
      if (spec && spec.type !== 'bool' && spec.type !== 'count') i++;
      continue;
    }
    // A short group (-qr /repo): bools, then at most one flag that takes a value — inline
    // (-r/repo) or as the next argument when it is the group's last letter.
    for (let k = 1; k < a.length; k++) {
      const spec = Object.values(GLOBAL_FLAGS).find((f) => f.short === a[k]);
      if (!spec || spec.type === 'bool' || spec.type === 'count') continue;
      if (k === a.length - 1) i++;
      break;
    }
  }
  return -1;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, out: Out = processOut): Promise<number> {
  const at = commandIndex(argv);
  const name = at >= 0 ? argv[at] : undefined;
  if (!name || name === 'help') {
    out.stdout(help());
    return name ? 0 : 1;
  }
  if (name === 'version') {
    out.stdout(`cairn ${VERSION} (restic repository format v1/v2) on node ${process.version}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // every waiting request listens for cancellation
  const onSignal = () => controller.abort(new CairnError('ABORTED', 'interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (!command) throw new CairnError('USAGE', `unknown command "${name}" for "cairn"`);
    const rest = [...argv];
    rest.splice(at, 1);
    const p = parseArgs(rest, { ...GLOBAL_FLAGS, ...command.flags });
    if (p.flags.help) {
      out.stdout(commandHelp(name, command));
      return 0;
    }
    installNodePrimitives();
    await initZstdNode();
    return await command.run({ g: globalOptions(p, env), p, out, signal: controller.signal });
  } catch (e) {
    out.stderr(errorLine(e) + '\n');
    if (isCairnError(e, 'ABORTED')) return 130;
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
