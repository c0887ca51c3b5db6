#!/usr/bin/env node
// Prints the longest functions (declarations, methods, arrows and function expressions) of the
// given folders, by lines from their first to their last line, longest first.
//   node scripts/function-lengths.mjs [--min 60] [--top 30] core/archiver core/restorer …
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export function functionLengths(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const nameOf = (n) => {
    if (n.name && ts.isIdentifier(n.name)) return n.name.text;
    if (n.name && ts.isPrivateIdentifier?.(n.name)) return n.name.text;
    const p = n.parent;
    if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
    if (p && ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
    return '(anonymous)';
  };
  const visit = (n) => {
    if (
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n) ||
      ts.isConstructorDeclaration(n) ||
      ts.isGetAccessor(n)
    ) {
      if (n.body) {
        const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
        const end = sf.getLineAndCharacterOfPosition(n.end).line;
        out.push({ file, name: nameOf(n), line: start + 1, lines: end - start + 1 });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function walk(dir, files = []) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) walk(p, files);
    else if (/\.ts$/.test(name) && !/\.(test|spec|d)\.ts$/.test(name)) files.push(p);
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  let min = 60,
    top = 30;
  const dirs = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--min') min = Number(args[++i]);
    else if (args[i] === '--top') top = Number(args[++i]);
    else dirs.push(args[i]);
  }
  const all = dirs.flatMap((d) => walk(d)).flatMap((f) => functionLengths(f, fs.readFileSync(f, 'utf8')));
  for (const f of all
    .filter((x) => x.lines >= min)
    .sort((a, b) => b.lines - a.lines)
    .slice(0, top))
    console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
}
