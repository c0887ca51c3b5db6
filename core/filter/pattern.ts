// restic's include/exclude patterns (internal/filter): a pattern is matched component by
// component against a path. `*`, `?` and `[…]` work within one component (Go's
// filepath.Match), `**` spans any number of components. A pattern starting with `/` is
// anchored at the root; otherwise it may match starting at any component. A pattern that
// matches a directory also matches everything below it. A pattern starting with `!` is
// negated: in a list, it takes back what earlier patterns matched (restic >= 0.13).

export interface Pattern {
  parts: string[];
  anchored: boolean;
  /** `!pattern`: un-matches what earlier patterns of the same list matched. */
  negated?: boolean;
}

export function parsePattern(p: string): Pattern {
  // Fix (restic preparePattern): a leading `!` negates, and the rest is filepath.Clean'ed —
  // we kept `!` as a literal character and `.`/`..` as literal components.
  const negated = p.startsWith('!');
  if (negated) p = p.slice(1);
  const anchored = p.startsWith('/');
  const parts: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (c === '..' && anchored)
      continue; // "/.." is "/"
    else parts.push(c);
  }
  // restic splits the cleaned "/" into ["/", ""], and "" is its marker for `**`: the pattern
  // "/" matches every path.
  if (anchored && parts.length === 0) parts.push('**');
  return negated ? { parts, anchored, negated } : { parts, anchored };
}

/** Whether every component is well-formed (restic ValidatePatterns: an unclosed `[`, an empty class, a trailing backslash are not). */
export function validPattern(p: Pattern): boolean {
  return p.parts.every((c) => c === '**' || globRegExp(c) !== null);
}

const componentRegExps = new Map<string, RegExp | null>();

/** Go filepath.Match for one component (no separators inside); false for a malformed pattern. */
export function matchComponent(pattern: string, name: string): boolean {
  let re = componentRegExps.get(pattern);
  if (re === undefined) {
    re = globRegExp(pattern);
    if (componentRegExps.size > 10_000) componentRegExps.clear();
    componentRegExps.set(pattern, re);
  }
  return re !== null && re.test(name);
}

/**
 * Go's filepath.Match syntax as a regular expression over code points (Go matches runes, so
 * `?` is one whole character, never half of a surrogate pair). Classes negate with `^` as in
 * Go (`!` is a literal there), and `\` escapes inside classes.
 * Malformed patterns (unclosed `[`, empty class, trailing `\`) never match (restic reports
 * ErrBadPattern and matches nothing).
 */
function globRegExp(pattern: string): RegExp | null {
  const cs = [...pattern];
  let re = '^';
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '\\') {
      if (++i >= cs.length) return null;
      re += escapeRe(cs[i]!);
    } else if (c === '[') {
      let j = i + 1;
      let cls = '';
      if (cs[j] === '^') {
        cls = '^';
        j++;
      }
      // Reads one (possibly escaped) class character; undefined if malformed.
      const classChar = (): string | undefined => {
        let ch = cs[j];
        if (ch === undefined || ch === '-' || ch === ']') return undefined;
        if (ch === '\\') ch = cs[++j];
        j++;
        return ch;
      };
      for (let ranges = 0; ; ranges++) {
        if (j >= cs.length) return null;
        if (cs[j] === ']' && ranges > 0) break;
        const lo = classChar();
        if (lo === undefined) return null;
        let hi = lo;
        if (cs[j] === '-') {
          j++;
          const h = classChar();
          if (h === undefined) return null;
          hi = h;
        }
        // Go: a reversed range is legal and matches nothing; a JS regex would reject it.
        if (lo.codePointAt(0)! <= hi.codePointAt(0)!) cls += escapeClass(lo) + (hi === lo ? '' : '-' + escapeClass(hi));
      }
      re += '[' + cls + ']';
      i = j;
    } else re += escapeRe(c);
  }
  return new RegExp(re + '$', 'su');
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function escapeClass(c: string): string {
  return c.replace(/[\\\][^-]/g, '\\$&');
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

/** Does this one pattern match `path` (its `negated` flag aside)? */
export function matchPattern(p: Pattern, path: string[]): boolean {
  if (p.parts.length === 0) return false;
  if (p.anchored) return matchFrom(p.parts, 0, path, 0);
  for (let start = 0; start < path.length; start++) if (matchFrom(p.parts, 0, path, start)) return true;
  return false;
}

/** Could something below `dirPath` match? (restic childMatch.) */
export function childMayMatch(p: Pattern, dirPath: string[]): boolean {
  if (p.parts.length === 0) return false;
  if (!p.anchored) return true; // a relative pattern can always match further down
  // As restic: the components before a `**` must match, so "/foo/**/x" enters /foo only, not
  // every top-level directory.
  const wild = p.parts.indexOf('**');
  const dir = wild >= 0 ? dirPath.slice(0, wild) : dirPath;
  for (let i = 0; i < Math.min(dir.length, p.parts.length); i++) {
    if (!matchComponent(p.parts[i]!, dir[i]!)) return false;
  }
  return true;
}

/** restic filter.List: the last word goes to the patterns in order, negated ones taking back. */
export function matchAny(patterns: Pattern[], path: string[]): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.negated) matched &&= !matchPattern(p, path);
    else matched ||= matchPattern(p, path);
  }
  return matched;
}

/** restic filter.ListWithChild's childMayMatch for a whole list. */
export function childMayMatchAny(patterns: Pattern[], dirPath: string[]): boolean {
  let child = false;
  for (const p of patterns) {
    if (p.negated) child &&= !matchPattern(p, dirPath);
    else child ||= childMayMatch(p, dirPath);
  }
  return child;
}
