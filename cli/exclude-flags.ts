// restic's exclude pattern options (internal/filter/exclude.go ExcludePatternOptions) as
// `rewrite` takes them: --exclude, --iexclude, --exclude-file, --iexclude-file. A pattern file
// holds one pattern a line; blank lines and lines starting with '#' are skipped, and $VAR /
// ${VAR} are expanded from the environment (restic readPatternsFromFiles).

import { matchAny, parsePattern } from '../core/filter/pattern';
import type { FlagSpecs } from './args';
import type { Context } from './context';
import { readPatternFiles } from './text-files';

export const EXCLUDE_FLAGS: FlagSpecs = {
  exclude: { type: 'strings', short: 'e', help: 'exclude a pattern (can be specified multiple times)' },
  iexclude: { type: 'strings', help: 'same as --exclude pattern but ignores the casing of filenames' },
  'exclude-file': { type: 'strings', help: 'read exclude patterns from a file (can be specified multiple times)' },
  'iexclude-file': { type: 'strings', help: 'same as --exclude-file but ignores casing of filenames in patterns' },
};

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
