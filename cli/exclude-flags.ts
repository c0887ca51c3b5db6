// restic's exclude pattern options (internal/filter/exclude.go ExcludePatternOptions) as
// `rewrite` takes them: --exclude, --iexclude, --exclude-file, --iexclude-file. A pattern file
// holds one pattern a line; blank lines and lines starting with '#' are skipped, and $VAR /
// ${VAR} are expanded from the environment (restic readPatternsFromFiles).

import fs from 'node:fs';
import { CairnError } from '../core/errors';
import { matchAny, parsePattern } from '../core/filter/pattern';
import type { FlagSpecs } from './args';
import type { Context } from './context';

export const EXCLUDE_FLAGS: FlagSpecs = {
  exclude: { type: 'strings', short: 'e', help: 'exclude a pattern (can be specified multiple times)' },
  iexclude: { type: 'strings', help: 'same as --exclude pattern but ignores the casing of filenames' },
  'exclude-file': { type: 'strings', help: 'read exclude patterns from a file (can be specified multiple times)' },
  'iexclude-file': { type: 'strings', help: 'same as --exclude-file but ignores casing of filenames in patterns' },
};

function expandEnv(line: string, env: NodeJS.ProcessEnv): string {
  // os.Expand with restic's getenvOrDollar: an unset variable stays as written.
  return line.replace(/\$(\{([^}]*)\}|[A-Za-z0-9_]+)/g, (whole, _m, braced: string | undefined) => {
    const name = braced ?? whole.slice(1);
    return env[name] ?? whole;
  });
}

function readPatternFiles(files: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new CairnError('USAGE', `failed to read exclude patterns from ${file}: ${(e as Error).message}`, { cause: e });
    }
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (line && !line.startsWith('#')) out.push(expandEnv(line, env));
    }
  }
  return out;
}

/** A test for "is this path (slash-separated, from the snapshot's root) excluded?", or undefined when no pattern was given. */
export function excludeMatcher(ctx: Context): ((path: string) => boolean) | undefined {
  const f = ctx.p.flags;
  const list = (name: string) => (f[name] as string[] | undefined) ?? [];
  const exact = [...list('exclude'), ...readPatternFiles(list('exclude-file'), ctx.g.env)].map(parsePattern);
  const folded = [...list('iexclude'), ...readPatternFiles(list('iexclude-file'), ctx.g.env)].map((p) => parsePattern(p.toLowerCase()));
  if (!exact.length && !folded.length) return undefined;
  return (path) => {
    const comps = path.split('/').filter(Boolean);
    return (
      (exact.length > 0 && matchAny(exact, comps)) ||
      (folded.length > 0 &&
        matchAny(
          folded,
          comps.map((c) => c.toLowerCase()),
        ))
    );
  };
}
