// restic exclude patterns (core/filter/pattern.ts) over the browser source's paths
// ("/<picked folder>/sub/file"), as `restic backup --exclude` applies them.

import { matchAny, parsePattern } from '../../core/filter/pattern';

export function excludeMatcher(patterns: string[]): ((path: string) => boolean) | undefined {
  const parsed = patterns
    .map((p) => p.trim())
    .filter(Boolean)
    .map(parsePattern);
  if (parsed.length === 0) return undefined;
  return (p) => matchAny(parsed, p.split('/').filter(Boolean));
}
