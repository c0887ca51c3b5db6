// The layer rules of docs/architecture.md as data, and a checker over import statements:
//   core/     imports nothing outside core/ (tests may use test/ helpers and Node), and no
//             package but the WebAssembly libraries it wraps
//   workers/  imports core/ and itself, never web/, cli/ or sw/
//   cli/      imports core/ and itself, never web/, workers/ or sw/
//   web/      reaches workers/ only through workers/api.ts and workers/client/
//   web/components/  do not call the engine: no value import of the engine client
//             (web/lib/engine.ts) or of workers/ and core/ (types are fine)
//   sw/       stands alone
//   no product file imports test/ or a `testing` module, and only tests import vitest: test
//             doubles, suites, oracles and fixtures live under test/
//   cli/, core/ and workers/ have no import circles (type-only imports count: a circle of types is
//             still two files that cannot be read one without the other)
// Imports are read with a regular expression, not a parser: static `import … from`, `export …
// from`, side-effect `import '…'` and dynamic `import('…')` with a literal specifier.

import path from 'node:path';

export interface ImportRef {
  specifier: string;
  /** `import type …` / `export type …`: erased at build time. */
  typeOnly: boolean;
  line: number;
}

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  rule: string;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one source file (a .svelte file's script blocks included). */
export function importsOf(source: string): ImportRef[] {
  const out: ImportRef[] = [];
  const lineAt = (i: number) => source.slice(0, i).split('\n').length;
  for (const m of source.matchAll(IMPORT)) out.push({ specifier: m[3]!, typeOnly: Boolean(m[2]), line: lineAt(m.index!) });
  for (const m of source.matchAll(DYNAMIC)) out.push({ specifier: m[1]!, typeOnly: false, line: lineAt(m.index!) });
  return out;
}

const CORE_PACKAGES = new Set(['hash-wasm', '@bokuweb/zstd-wasm']);
const top = (p: string) => p.split('/')[0]!;

/**
 * The rule an import breaks, or undefined. `file` is a path from the repository root; `test`
 * says it is test code (a test, or a suite tests import): core's may also use test/ helpers,
 * Node and vitest; the other layers' tests set up whatever runtime they need.
 */
export function ruleBroken(file: string, ref: ImportRef, test = false): string | undefined {
  const relative = ref.specifier.startsWith('.');
  const target = relative ? path.posix.normalize(path.posix.join(path.posix.dirname(file), ref.specifier)) : undefined;
  const from = top(file);
  const to = target ? top(target) : undefined;
  if (test && from !== 'core') return undefined;
  if (!test && target && (to === 'test' || /(^|\/)testing(\/|$)/.test(target))) return 'product code imports nothing from test/ or a testing module';
  if (!test && ref.specifier === 'vitest') return 'only tests import vitest (suites and helpers live under test/)';
  switch (from) {
    case 'core':
      if (test) return to && to !== 'core' && to !== 'test' ? 'core/ tests import only core/ and test/ helpers' : undefined;
      if (target) return to === 'core' ? undefined : 'core/ imports nothing outside core/';
      return CORE_PACKAGES.has(ref.specifier) ? undefined : `core/ uses no package but ${[...CORE_PACKAGES].join(', ')} (no Node, no DOM libraries)`;
    case 'workers':
      return to === 'web' || to === 'cli' || to === 'sw' ? 'workers/ imports core/ and itself only' : undefined;
    case 'cli':
      return to === 'web' || to === 'workers' || to === 'sw' ? 'cli/ imports core/ and itself only' : undefined;
    case 'sw':
      return to && to !== 'sw' ? 'sw/ stands alone' : undefined;
    case 'web':
      return webRule(file, target, ref);
  }
  return undefined;
}

function webRule(file: string, target: string | undefined, ref: ImportRef): string | undefined {
  if (!target) return undefined;
  if (top(target) === 'workers' && target !== 'workers/api' && target !== 'workers/api.ts' && !target.startsWith('workers/client/')) {
    return 'web/ reaches workers/ only through workers/api.ts and workers/client/';
  }
  if (file.startsWith('web/components/') && !ref.typeOnly) {
    if (target.replace(/\.ts$/, '') === 'web/lib/engine') return 'components do not call the engine (state classes do)';
    if (top(target) === 'workers' || top(target) === 'core') return 'components import only types from workers/ and core/';
  }
  return undefined;
}

/** Every broken rule among `files` (path from the repository root → source text). */
export function checkLayers(files: Map<string, string>): Violation[] {
  const out: Violation[] = [];
  for (const [file, source] of files) {
    const refs = importsOf(source);
    const test = /\.(test|spec)\.ts$/.test(file);
    for (const ref of refs) {
      const rule = ruleBroken(file, ref, test);
      if (rule) out.push({ file, line: ref.line, specifier: ref.specifier, rule });
    }
  }
  return out;
}

const TEST_FILE = /\.(test|spec)\.ts$/;

/** The file a relative import names, among `files` (with or without `.ts`, or a folder's index.ts). */
function resolveImport(file: string, specifier: string, files: Map<string, string>): string | undefined {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  return [target, `${target}.ts`, `${target}/index.ts`].find((t) => files.has(t));
}

/**
 * The import circles among the product files of `folders` (tests left out), each as the files
 * of one strongly connected component, sorted. Type-only imports count.
 */
export function importCircles(files: Map<string, string>, folders: readonly string[]): string[][] {
  const inScope = (f: string) => folders.some((d) => f.startsWith(`${d}/`)) && !TEST_FILE.test(f);
  const edges = new Map<string, string[]>();
  for (const [file, source] of files) {
    if (!inScope(file)) continue;
    const to = importsOf(source).flatMap((r) => (r.specifier.startsWith('.') ? [resolveImport(file, r.specifier, files)] : []));
    edges.set(
      file,
      to.filter((t): t is string => t !== undefined && inScope(t)),
    );
  }
  return stronglyConnected(edges)
    .filter((c) => c.length > 1 || edges.get(c[0]!)!.includes(c[0]!))
    .map((c) => c.sort());
}

/** Tarjan's strongly connected components of a graph given as adjacency lists. */
function stronglyConnected(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    out.push(component);
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}
