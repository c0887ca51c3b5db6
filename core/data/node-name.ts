// Which node names may become a path component when a tree is restored, zipped or dumped.
// A tree is written by whoever holds a key; a name that is empty, `.`, `..`, holds `/` or
// NUL, or repeats within one tree would make two nodes share a path or step outside the
// folder being written (a `lnk` symlink followed by a directory `lnk` writes through the
// link). restic refuses the same names ("invalid child node name", restorer.go) before it
// touches the file system; so does everything here that turns names into paths.

import { CairnError } from '../errors';
import type { Node } from './node';

export type NameProblem = 'empty' | 'dot' | 'dot-dot' | 'slash' | 'nul' | 'repeated';

const DESCRIBE: Record<NameProblem, string> = {
  empty: 'an empty name',
  dot: 'the name "."',
  'dot-dot': 'the name ".."',
  slash: 'a name containing "/"',
  nul: 'a name containing a NUL byte',
  repeated: 'a name that appears twice in one folder',
};

/** Why `name` cannot be one path component, or undefined when it can. */
export function nameProblem(name: string): NameProblem | undefined {
  if (name === '') return 'empty';
  if (name === '.') return 'dot';
  if (name === '..') return 'dot-dot';
  if (name.includes('/')) return 'slash';
  if (name.includes('\0')) return 'nul';
  return undefined;
}

/** The coded error for a refused node: `dir` is its folder's path (components). */
export function invalidNameError(dir: readonly string[], name: string, problem: NameProblem): CairnError {
  const where = '/' + dir.join('/');
  return new CairnError('INVALID_NAME', `${where}: refused a node with ${DESCRIBE[problem]} (${JSON.stringify(name)}); it was not restored`, {
    detail: { path: where, name, problem },
  });
}

export interface RefusedNode {
  node: Node;
  problem: NameProblem;
}

/**
 * Splits a tree's nodes into those that may become paths (in their order; the first of a
 * repeated name among them) and those refused.
 */
export function partitionByName(nodes: readonly Node[]): { valid: Node[]; refused: RefusedNode[] } {
  const valid: Node[] = [];
  const refused: RefusedNode[] = [];
  const seen = new Set<string>();
  for (const node of nodes) {
    const problem = nameProblem(node.name) ?? (seen.has(node.name) ? 'repeated' : undefined);
    if (problem) refused.push({ node, problem });
    else {
      seen.add(node.name);
      valid.push(node);
    }
  }
  return { valid, refused };
}

/** Throws INVALID_NAME unless every component of `path` may be a path component. */
export function assertSafePath(path: readonly string[]): void {
  for (let i = 0; i < path.length; i++) {
    const problem = nameProblem(path[i]!);
    if (problem) throw invalidNameError(path.slice(0, i), path[i]!, problem);
  }
}
