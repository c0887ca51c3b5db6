// restic's include/exclude flag families (internal/filter include.go, exclude.go): the
// patterns given on the command line, in files (--include-file …), and their case-insensitive
// twins, each list checked for malformed patterns the way restic reports them.

import { CairnError } from '../core/errors';
import { parsePattern, validPattern, type Pattern } from '../core/filter/pattern';
import { defineFlags, type FlagValues } from './args';
import { readPatternFiles } from './text-files';

export type PatternKind = 'include' | 'exclude';

/** restic's exclude flags (ExcludePatternOptions). */
export const EXCLUDE_FLAGS = defineFlags({
  exclude: { type: 'strings', short: 'e', help: 'exclude a pattern (can be specified multiple times)' },
  iexclude: { type: 'strings', help: 'same as --exclude pattern but ignores the casing of filenames' },
  'exclude-file': { type: 'strings', help: 'read exclude patterns from a file (can be specified multiple times)' },
  'iexclude-file': { type: 'strings', help: 'same as --exclude-file but ignores casing of filenames in patterns' },
});

/** restic's include flags (IncludePatternOptions). */
export const INCLUDE_FLAGS = defineFlags({
  include: { type: 'strings', short: 'i', help: 'include a pattern (can be specified multiple times)' },
  iinclude: { type: 'strings', help: 'same as --include pattern but ignores the casing of filenames' },
  'include-file': { type: 'strings', help: 'read include patterns from a file (can be specified multiple times)' },
  'iinclude-file': { type: 'strings', help: 'same as --include-file but ignores casing of filenames in patterns' },
});

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

/** One kind's four lists: given, given ignoring case, and the files of each. */
function patternLists(kind: PatternKind, f: FlagValues<typeof EXCLUDE_FLAGS & typeof INCLUDE_FLAGS>): [string[], string[], string[], string[]] {
  const lists =
    kind === 'include' ? [f.include, f.iinclude, f['include-file'], f['iinclude-file']] : [f.exclude, f.iexclude, f['exclude-file'], f['iexclude-file']];
  const [given = [], insensitive = [], files = [], insensitiveFiles = []] = lists;
  return [given, insensitive, files, insensitiveFiles];
}

/** The patterns of one kind from the parsed flags (restic CollectPatterns). */
export function collectPatterns(kind: PatternKind, f: FlagValues<typeof EXCLUDE_FLAGS & typeof INCLUDE_FLAGS>, env: NodeJS.ProcessEnv): CollectedPatterns {
  const [given, insensitive, files, insensitiveFiles] = patternLists(kind, f);
  const fromFile = readPatternFiles(files, env);
  const fromIFile = readPatternFiles(insensitiveFiles, env);
  checked(`${kind}-file`, fromFile);
  checked(`i${kind}-file`, fromIFile);
  return { insensitive: checked(`i${kind}`, [...insensitive, ...fromIFile]), patterns: checked(kind, [...given, ...fromFile]) };
}
