// restic's exclude pattern options (internal/filter/exclude.go ExcludePatternOptions) as
// `rewrite` takes them: --exclude, --iexclude, --exclude-file, --iexclude-file. A pattern file
// holds one pattern a line; blank lines and lines starting with '#' are skipped, and $VAR /
// ${VAR} are expanded from the environment (restic readPatternsFromFiles).

import { matchAny, parsePattern } from '../core/filter/pattern';
import type { Context } from './context';
import { EXCLUDE_FLAGS } from './pattern-options';
import { readPatternFiles } from './text-files';

/** A test for "is this path (slash-separated, from the snapshot's root) excluded?", or undefined when no pattern was given. */
export function excludeMatcher(ctx: Context<typeof EXCLUDE_FLAGS>): ((path: string) => boolean) | undefined {
  const f = ctx.flags;
  const exact = [...(f.exclude ?? []), ...readPatternFiles(f['exclude-file'] ?? [], ctx.globals.env)].map(parsePattern);
  const folded = [...(f.iexclude ?? []), ...readPatternFiles(f['iexclude-file'] ?? [], ctx.globals.env)].map((p) => parsePattern(p.toLowerCase()));
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
