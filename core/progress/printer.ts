// What a long repository operation (copy, rewrite, repair) tells its user, by level, as
// restic's Printer: `p` normal lines, `e` problems (stderr), `v` details shown with --verbose.
// The engine only calls it; the CLI decides where each level goes.

export interface Printer {
  p(line: string): void;
  e(line: string): void;
  v(line: string): void;
}

export const silentPrinter: Printer = { p: () => {}, e: () => {}, v: () => {} };
