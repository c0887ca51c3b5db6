// restic's include/exclude patterns (internal/filter): component-wise matching with `*`, `?`,
// `[…]`, `**`, anchored `/` patterns and `!` negation, as backup excludes and restore
// include/exclude use them.
export { parsePattern, matchComponent, matchPattern, childMayMatch, matchAny, childMayMatchAny, type Pattern } from './pattern';
