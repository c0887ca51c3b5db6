// `cairn`: restic's command line on Cairn's engine. Same command names, flags, environment
// variables and output shapes where they apply, so restic users' scripts carry over. Errors
// end in one coded line on stderr and a non-zero exit (restic's: 1 fatal, 3 some sources
// unreadable, 130 interrupted).

import { setMaxListeners } from 'node:events';
import { CairnError, isCairnError } from '../core/errors';
import { parseCommandLine, type FlagSpecs } from './args';
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
import * as forget from './commands/forget';
import * as prune from './commands/prune';
import * as copy from './commands/copy';
import * as rewrite from './commands/rewrite';
import * as repair from './commands/repair';
import { releaseHeldLocks, type Context } from './context';
import { commandHelp, rootHelp } from './help';
import * as find from './commands/find';
import * as diff from './commands/diff';
import * as dump from './commands/dump';
import * as tag from './commands/tag';
import * as generate from './commands/generate';
import * as presign from './commands/presign';
import { withOpLog } from './op-log';
import { checkDevice } from './presign/device-gate';

/** A command: its help, its flags (which also type its context) and what it does. */
export interface Command<F extends FlagSpecs = FlagSpecs> {
  summary: string;
  flags: F;
  usage?: string;
  description?: string;
  run(ctx: Context<F>): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  init,
  backup,
  snapshots,
  ls,
  restore,
  cat,
  check,
  stats,
  key,
  unlock,
  list,
  find,
  diff,
  dump,
  tag,
  generate: { ...generate, run: (ctx) => generate.run(ctx, COMMANDS) },
  forget,
  prune,
  copy,
  rewrite,
  repair,
  presign,
};

const VERSION = '0.1.0';

/** Index of the command word: the first argument that is neither a flag nor a global flag's value. */
function commandIndex(argv: string[]): number {
  const globals: FlagSpecs = GLOBAL_FLAGS;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (!a.startsWith('-') || a === '-') return i;
    if (a.includes('=')) continue;
    if (a.startsWith('--')) {
      const spec = globals[a.slice(2)];
      if (spec && spec.type !== 'bool' && spec.type !== 'count') i++;
      continue;
    }
    // A short group (-qr /repo): bools, then at most one flag that takes a value — inline
    // (-r/repo) or as the next argument when it is the group's last letter.
    for (let k = 1; k < a.length; k++) {
      const spec = Object.values(globals).find((f) => f.short === a[k]);
      if (!spec || spec.type === 'bool' || spec.type === 'count') continue;
      if (k === a.length - 1) i++;
      break;
    }
  }
  return -1;
}

/** How long an interrupted command may take to stop before its locks are removed and the process exits anyway. */
const INTERRUPT_GRACE_MS = 1800;

/**
 * Ctrl-C / SIGTERM (restic's cleanup handlers): the first cancels the command, which stops its
 * requests, stores what is complete and removes its lock. Should that take longer than
 * INTERRUPT_GRACE_MS (an upload to a server that hangs), or a second signal come, the locks
 * still held are removed (briefly: the server may be what hangs) and the process exits with 130.
 */
function interruptHandler(controller: AbortController, out: Out): () => void {
  const exit = async (why: string) => {
    out.stderr(`ABORTED: interrupted; ${why}\n`);
    await releaseHeldLocks();
    process.exit(130);
  };
  return () => {
    if (controller.signal.aborted) return void exit('interrupted again, exiting now');
    controller.abort(new CairnError('ABORTED', 'interrupted'));
    setTimeout(() => void exit('cleaning up took too long, exiting'), INTERRUPT_GRACE_MS).unref();
  };
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, out: Out = processOut): Promise<number> {
  const at = commandIndex(argv);
  const name = at >= 0 ? argv[at] : undefined;
  // restic (cobra): no command, `help`, `help <command>` and a bare --help print help, exit 0.
  if (!name || name === 'help') {
    const topic = name ? argv[at + 1] : undefined;
    const c = topic ? COMMANDS[topic] : undefined;
    out.stdout(c ? commandHelp(topic!, c) : rootHelp(COMMANDS));
    return 0;
  }
  if (name === 'version') {
    out.stdout(`cairn ${VERSION} (restic repository format v1/v2) on node ${process.version}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // every waiting request listens for cancellation
  const onSignal = interruptHandler(controller, out);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (!command) throw new CairnError('USAGE', `unknown command "${name}" for "cairn"`);
    const rest = [...argv];
    rest.splice(at, 1);
    const { globals: globalFlags, flags, args } = parseCommandLine(rest, GLOBAL_FLAGS, command.flags);
    if (globalFlags.help) {
      out.stdout(commandHelp(name, command));
      return 0;
    }
    installNodePrimitives();
    await initZstdNode();
    const globals = globalOptions(globalFlags, env);
    await checkDevice(name, { flags, args }, globals, controller.signal);
    return await withOpLog(
      globals.logFile,
      { command: name, repository: globals.repo },
      (log) => command.run({ globals, flags, args, out, signal: controller.signal, log }),
      out.stderr,
    );
  } catch (e) {
    out.stderr(errorLine(e) + '\n');
    if (isCairnError(e, 'ABORTED')) return 130;
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
