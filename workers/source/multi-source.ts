// Several picked folders as one SourceFS, for a plan that backs up more than one folder into
// one snapshot (restic: `backup ~/Documents ~/Photos`, paths ["/Documents", "/Photos"]).
// Browsers give a folder's name but not where it lives, so each folder is recorded as
// "/<name>": two folders of the same name cannot go into one snapshot and are refused.

import { CairnError } from '../../core/errors';
import type { SourceFS } from '../../core/archiver/source';
import { pathOps } from './metadata';

export interface MultiSource extends SourceFS {
  readonly targets: string[];
}

export function multiSource(sources: readonly (SourceFS & { target: string })[]): MultiSource {
  if (sources.length === 0) throw new CairnError('USAGE', 'no folder to back up');
  const byRoot = new Map<string, SourceFS & { target: string }>();
  for (const s of sources) {
    const root = pathOps.components(s.target)[0]!;
    if (byRoot.has(root))
      throw new CairnError('USAGE', `two folders are named “${root}”: a snapshot records folders by name, so back them up separately`, {
        detail: { path: s.target },
      });
    byRoot.set(root, s);
  }
  const of = (path: string) => {
    const s = byRoot.get(pathOps.components(path)[0] ?? '');
    if (!s) throw new CairnError('SOURCE_READ', `${path}: not in a picked folder`, { detail: { path } });
    return s;
  };
  return {
    targets: sources.map((s) => s.target),
    ...pathOps,
    stat: (path, signal) => of(pathOps.absolute(path)).stat(path, signal),
    readDir: (dir, onError, signal) => of(dir.path).readDir(dir, onError, signal),
    // Names and entries one by one only where every folder's source gives them.
    ...(sources.every((s) => s.readNames && s.entryOf)
      ? {
          readNames: (dir, signal) => of(dir.path).readNames!(dir, signal),
          entryOf: (dir, name, signal) => of(dir.path).entryOf!(dir, name, signal),
        }
      : {}),
  };
}
