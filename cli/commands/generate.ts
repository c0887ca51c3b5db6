import fs from 'node:fs';
import path from 'node:path';
import { CairnError } from '../../core/errors';
import { defineFlags } from '../args';
import type { Context } from '../context';
import { bashCompletion, manPages, zshCompletion } from '../completion';
import type { CommandInfo } from '../help';

export const summary = 'Generate manual pages and auto-completion files (bash, zsh)';
export const usage = '[flags]';
export const description = `
The "generate" command writes automatically generated files (like the man pages
and the auto-completion files for bash and zsh).

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  'bash-completion': { type: 'string', help: 'write bash completion file' },
  'zsh-completion': { type: 'string', help: 'write zsh completion file' },
  man: { type: 'string', help: 'write man pages to directory' },
});

function write(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text);
  } catch (e) {
    throw new CairnError('USAGE', `cannot write ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** `commands`: the CLI's command table, which main.ts hands in (it holds this command too). */
export async function run(ctx: Context<typeof flags>, commands: Record<string, CommandInfo>): Promise<number> {
  const f = ctx.flags;
  const bash = f['bash-completion'];
  const zsh = f['zsh-completion'];
  const man = f.man;
  if (!bash && !zsh && !man) throw new CairnError('USAGE', 'nothing to do, please specify at least one output file/dir');
  if (bash) {
    if (!ctx.globals.quiet) ctx.out.stdout('writing bash completion file to ' + bash + '\n');
    write(bash, bashCompletion(commands));
  }
  if (zsh) {
    if (!ctx.globals.quiet) ctx.out.stdout('writing zsh completion file to ' + zsh + '\n');
    write(zsh, zshCompletion(commands));
  }
  if (man) {
    if (!fs.existsSync(man) || !fs.statSync(man).isDirectory()) throw new CairnError('USAGE', `${man} is not a directory`);
    const date = new Date().toISOString().slice(0, 10);
    for (const [name, text] of manPages(commands, date)) {
      if (!ctx.globals.quiet) ctx.out.stdout(`writing man page ${path.join(man, name)}\n`);
      write(path.join(man, name), text);
    }
  }
  return 0;
}
