// restic's include/exclude flag families (internal/filter include.go, exclude.go): the
// patterns given on the command line, in files (--include-file …), and their case-insensitive
// twins, each list checked for malformed patterns the way restic reports them.

import { CairnError } from '../core/errors';
import { parsePattern, validPattern, type Pattern } from '../core/filter/pattern';
import type { FlagSpecs, Parsed } from './args';
import { readPatternFiles } from './text-files';

export type PatternKind = 'include' | 'exclude';

/** The four flags of one kind, as restic declares them. */
export function patternFlags(kind: PatternKind, short: string): FlagSpecs {
  const verb = kind === 'include' ? 'include' : 'exclude';
  return {
    [kind]: { type: 'strings', short, help: `${verb} a pattern (can be specified multiple times)` },
    [`i${kind}`]: { type: 'strings', help: `same as --${kind} pattern but ignores the casing of filenames` },
    [`${kind}-file`]: { type: 'strings', help: `read ${verb} patterns from a file (can be specified multiple times)` },
    [`i${kind}-file`]: { type: 'strings', help: `same as --${kind}-file but ignores casing of filenames in patterns` },
  };
}

export interface CollectedPatterns {
  patterns: Pattern[];
  /** Matched ignoring case. */
  insensitive: Pattern[];
}

/** Fails like restic ValidatePatterns: every malformed pattern of the list, named. */
function checked(flag: string, list: string[]): Pattern[] {
  const patterns = list.filter((p) => p !== '').map((p) => ({ text: p, pattern: parsePattern(p) }));
  const bad = patterns.filter((p) => !validPattern(p.pattern)).map((p) => p.text);
  if (bad.length) throw new CairnError('USAGE', `--${flag}: invalid pattern(s) provided:\n${bad.join('\n')}`);
  return patterns.map((p) => p.pattern);
}

/** The patterns of one kind from the parsed flags (restic CollectPatterns). */
export function collectPatterns(kind: PatternKind, p: Parsed, env: NodeJS.ProcessEnv): CollectedPatterns {
  const list = (name: string) => (p.flags[name] as string[] | undefined) ?? [];
  const fromFile = readPatternFiles(list(`${kind}-file`), env);
  const fromIFile = readPatternFiles(list(`i${kind}-file`), env);
  checked(`${kind}-file`, fromFile);
  checked(`i${kind}-file`, fromIFile);
  return { insensitive: checked(`i${kind}`, [...list(`i${kind}`), ...fromIFile]), patterns: checked(kind, [...list(kind), ...fromFile]) };
}
