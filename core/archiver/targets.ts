// restic records each backup target under its full absolute path: backing up /home/u/docs
// gives root → "home" → "u" → "docs". This builds that skeleton of intermediate directories
// from the targets (restic internal/archiver/tree.go NewTree).

import { CairnError } from '../errors';
import type { SourceFS } from './source';

export interface TargetDir {
  name: string;
  /** Path of this component in the SourceFS. */
  path: string;
  /** True for a backup target itself (saved whole); false for an intermediate component. */
  target: boolean;
  children: TargetDir[];
}

export function buildTargetTree(source: SourceFS, absolutePaths: string[]): TargetDir[] {
  const root: TargetDir = { name: '', path: '', target: false, children: [] };
  // Shorter paths first, so a target inside another target is absorbed by the outer one.
  const sorted = [...absolutePaths].sort((a, b) => source.components(a).length - source.components(b).length);
  for (const p of sorted) {
    const comps = source.components(p);
    if (comps.length === 0) throw new CairnError('USAGE', `cannot back up the root directory itself: ${p}`);
    let node = root;
    let absorbed = false;
    for (let i = 0; i < comps.length; i++) {
      const name = comps[i]!;
      let child = node.children.find((c) => c.name === name);
      if (!child) {
        child = { name, path: source.join(comps.slice(0, i + 1)), target: false, children: [] };
        node.children.push(child);
      }
      if (child.target) {
        absorbed = true;
        break;
      }
      node = child;
    }
    if (!absorbed) {
      node.target = true;
      node.children = [];
    }
  }
  return root.children;
}
