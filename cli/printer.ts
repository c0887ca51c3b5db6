// restic's terminal Printer for copy, rewrite and repair: normal lines on stdout (not with
// --quiet or --json), problems on stderr, details with --verbose.

import type { Printer } from '../core/progress/printer';
import type { Context } from './context';

export function cliPrinter(ctx: Context): Printer {
  const normal = !ctx.globals.quiet && !ctx.globals.json;
  return {
    p: (line) => normal && ctx.out.stdout(line + '\n'),
    e: (line) => ctx.out.stderr(line + '\n'),
    v: (line) => normal && ctx.globals.verbose && ctx.out.stdout(line + '\n'),
  };
}
