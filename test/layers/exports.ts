// Exports nothing imports: a value (function, const, class, enum) a product file exports that
// no other file — product, test, benchmark or script — imports, and that its folder's
// index.ts does not name as the folder's surface (docs/architecture.md: each core/ folder's index.ts says
// what it owns). Such an export is dead code, or an `export`
// keyword that makes a file's private helper look like part of its interface. Types are left
// out: an exported function's option and result types are its interface even when callers
// never name them. Read with regular expressions, like ./layers.ts: named, namespace (all
// names count), dynamic (all names count) imports and `export … from` chains through index
// files.

import path from 'node:path';

export interface DeadExport {
  file: string;
  line: number;
  name: string;
}

const PRODUCT = /^(core|workers|web|cli|sw)\//;
/** AssemblyScript sources: their exports are the WebAssembly module's, read through `instance.exports`. */
const WASM_SOURCE = /^core\/wasm\/as\//;
const TEST_FILE = /\.(test|spec)\.ts$/;
const VALUE = /^export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|abstract\s+class|enum)\s+([A-Za-z_$][\w$]*)/gm;
const LIST = /^export\s+(type\s+)?\{([^}]*)\}\s*(?:from\s+['"]([^'"]+)['"])?/gm;
const STAR = /^export\s+\*\s+from\s+['"]([^'"]+)['"]/gm;
const IMPORT = /^\s*import\s+(?:type\s+)?([^'";]*?)\s+from\s+['"]([^'"]+)['"]/gm;
const DYNAMIC = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Reexport {
  from: string | undefined;
  /** [name in `from`, name here], or every name. */
  names: [string, string][] | '*';
}

const lineAt = (source: string, i: number) => source.slice(0, i).split('\n').length;
const names = (list: string) =>
  list
    .split(',')
    .map((s) => s.trim().replace(/^type\s+/, ''))
    .filter(Boolean)
    .map((s) => s.split(/\s+as\s+/) as [string, string?]);

function resolve(file: string, specifier: string, files: Map<string, string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  return [target, `${target}.ts`, `${target}/index.ts`].find((t) => files.has(t));
}

/** Every value export of product files that nothing imports (`files`: path from the root → text, importers included). */
export function deadExports(files: Map<string, string>): DeadExport[] {
  const exported = new Map<string, Map<string, number>>();
  const reexports = new Map<string, Reexport[]>();
  for (const [file, source] of files) {
    const mine = new Map<string, number>();
    const re: Reexport[] = [];
    for (const m of source.matchAll(VALUE)) mine.set(m[1]!, lineAt(source, m.index));
    for (const m of source.matchAll(LIST)) {
      const list = names(m[2]!).map(([a, b]) => [a, b ?? a] as [string, string]);
      if (!m[1]) for (const [, b] of list) mine.set(b, lineAt(source, m.index));
      if (m[3]) re.push({ from: resolve(file, m[3], files), names: list });
    }
    for (const m of source.matchAll(STAR)) re.push({ from: resolve(file, m[1]!, files), names: '*' });
    exported.set(file, mine);
    reexports.set(file, re);
  }
  const used = new Set<string>();
  const use = (file: string | undefined, name: string, by: string, seen = new Set<string>()) => {
    if (!file || seen.has(`${file}#${name}`)) return;
    seen.add(`${file}#${name}`);
    if (file !== by) used.add(`${file}#${name}`);
    for (const r of reexports.get(file) ?? []) {
      if (r.names === '*') use(r.from, name, by, seen);
      else for (const [a, b] of r.names) if (b === name) use(r.from, a, by, seen);
    }
  };
  // A folder's index.ts names its surface (docs/architecture.md): what it re-exports counts as used.
  for (const [file, re] of reexports) {
    if (!file.endsWith('/index.ts')) continue;
    for (const r of re) {
      if (r.names !== '*') for (const [a] of r.names) use(r.from, a, file);
      else if (r.from) for (const name of exported.get(r.from)?.keys() ?? []) use(r.from, name, file);
    }
  }
  const useAll = (file: string, by: string) => {
    for (const name of exported.get(file)?.keys() ?? []) use(file, name, by);
  };
  for (const [file, source] of files) {
    for (const m of source.matchAll(IMPORT)) {
      const target = resolve(file, m[2]!, files);
      if (!target) continue;
      if (/\*\s+as\s+/.test(m[1]!)) useAll(target, file);
      for (const [a] of names(/\{([^}]*)\}/.exec(m[1]!)?.[1] ?? '')) use(target, a, file);
    }
    for (const m of source.matchAll(DYNAMIC)) {
      const target = resolve(file, m[1]!, files);
      if (target) useAll(target, file);
    }
  }
  const out: DeadExport[] = [];
  for (const [file, mine] of exported) {
    if (!PRODUCT.test(file) || WASM_SOURCE.test(file) || TEST_FILE.test(file) || file.endsWith('/index.ts')) continue;
    for (const [name, line] of mine) if (!used.has(`${file}#${name}`)) out.push({ file, line, name });
  }
  return out;
}
