// restic's include/exclude patterns (internal/filter): a pattern is matched component by
// component against a path. `*`, `?` and `[…]` work within one component (Go's
// filepath.Match), `**` spans any number of components. A pattern starting with `/` is
// anchored at the root; otherwise it may match starting at any component. A pattern that
// matches a directory also matches everything below it.

export interface Pattern {
  parts: string[];
  anchored: boolean;
}

export function parsePattern(p: string): Pattern {
  const anchored = p.startsWith('/');
  return { parts: p.split('/').filter((c) => c !== ''), anchored };
}

/** Go filepath.Match for one component (no separators inside). */
export function matchComponent(pattern: string, name: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return false; // malformed: never matches
      let cls = pattern.slice(i + 1, end);
      if (cls.startsWith('^')) cls = '\\^' + cls.slice(1);
      if (cls.startsWith('!')) cls = '^' + cls.slice(1);
      re += '[' + cls.replace(/\\/g, '\\\\') + ']';
      i = end;
    } else if (c === '\\' && i + 1 < pattern.length) {
      re += escapeRe(pattern[++i]!);
    } else re += escapeRe(c);
  }
  return new RegExp(re + '$', 's').test(name);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Do `parts[pi..]` match a prefix of `path[si..]`? */
function matchFrom(parts: string[], pi: number, path: string[], si: number): boolean {
  if (pi === parts.length) return true; // pattern exhausted: matched a prefix (dir match)
  if (parts[pi] === '**') {
    for (let k = si; k <= path.length; k++) if (matchFrom(parts, pi + 1, path, k)) return true;
    return false;
  }
  if (si === path.length) return false;
  return matchComponent(parts[pi]!, path[si]!) && matchFrom(parts, pi + 1, path, si + 1);
}

export function matchPattern(p: Pattern, path: string[]): boolean {
  if (p.parts.length === 0) return false;
  if (p.anchored) return matchFrom(p.parts, 0, path, 0);
  for (let start = 0; start < path.length; start++) if (matchFrom(p.parts, 0, path, start)) return true;
  return false;
}

/** Could something below `dirPath` match? (restic childMayMatch; conservative.) */
export function childMayMatch(p: Pattern, dirPath: string[]): boolean {
  if (p.parts.length === 0) return false;
  if (!p.anchored || p.parts.includes('**')) return true;
  for (let i = 0; i < Math.min(dirPath.length, p.parts.length); i++) {
    if (!matchComponent(p.parts[i]!, dirPath[i]!)) return false;
  }
  return true;
}

export function matchAny(patterns: Pattern[], path: string[]): boolean {
  return patterns.some((p) => matchPattern(p, path));
}
